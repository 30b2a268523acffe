# Compiles the Chinese catalogue po/zh.po into the .mo the app reads (msgfmt --check-format: a translation whose {n}
# placeholders or C formats do not match its English fails the build).
# Run as: cmake -DMSGFMT=… -DPO_DIR=<source>/po -DOUTPUT=<…/transformer-workbench.mo> -P compile_catalogue.cmake
get_filename_component(out_dir ${OUTPUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})
execute_process(COMMAND ${MSGFMT} --check-format -o ${OUTPUT} ${PO_DIR}/zh.po RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "msgfmt failed on ${PO_DIR}/zh.po")
endif()
