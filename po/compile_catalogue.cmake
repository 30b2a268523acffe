# Compiles the Chinese catalogue: po/zh.po plus any po/fragments/*.po (the Chinese for strings other branches added,
# not yet folded into zh.po by scripts/update-po.sh) → one .mo. zh.po wins where both translate a string.
# Run as: cmake -DMSGCAT=… -DMSGFMT=… -DPO_DIR=<source>/po -DWORK_DIR=<build>/po -DOUTPUT=<…/transformer-workbench.mo>
#         -P compile_catalogue.cmake
# A fragment may have no header; it is then given one declaring UTF-8, which msgcat needs to read it.
file(GLOB fragments ${PO_DIR}/fragments/*.po)
list(SORT fragments)
file(MAKE_DIRECTORY ${WORK_DIR})
set(inputs ${PO_DIR}/zh.po)
foreach(f ${fragments})
  get_filename_component(name ${f} NAME)
  file(READ ${f} text)
  if(NOT text MATCHES "charset=")
    set(text "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\n${text}")
  endif()
  file(WRITE ${WORK_DIR}/fragment-${name} "${text}")
  list(APPEND inputs ${WORK_DIR}/fragment-${name})
endforeach()
execute_process(COMMAND ${MSGCAT} --use-first --force-po -o ${WORK_DIR}/zh-all.po ${inputs} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "msgcat failed on ${inputs}")
endif()
get_filename_component(out_dir ${OUTPUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})
execute_process(COMMAND ${MSGFMT} --check-format -o ${OUTPUT} ${WORK_DIR}/zh-all.po RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "msgfmt failed on ${WORK_DIR}/zh-all.po")
endif()
