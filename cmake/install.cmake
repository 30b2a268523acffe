# cmake --install: the program, its data, its translations and its desktop integration in the freedesktop places.
#   bin/transformer-workbench
#   share/transformer-workbench/{scenes,models,positions,...}  found at run time as <exe>/../share/transformer-workbench
#   share/locale/<lang>/LC_MESSAGES/transformer-workbench.mo   (built by msgfmt when the catalogue exists)
#   share/applications, share/metainfo, share/mime/packages, share/icons/hicolor, share/man/man1,
#   share/doc/transformer-workbench/{copyright,changelog.gz}
# and CPack's Debian package of the same tree (scripts/package.sh).
set(TW_APP_ID "invalid.transformer_workbench.TransformerWorkbench")  # packaging/*.metainfo.xml says why

install(TARGETS transformer-workbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/transformer-workbench
        PATTERN "README.md" EXCLUDE)
# Message catalogues compiled by msgfmt into <build>/locale (absent until the catalogue is built: nothing to install).
install(DIRECTORY ${PROJECT_BINARY_DIR}/locale/ DESTINATION ${CMAKE_INSTALL_LOCALEDIR} OPTIONAL
        FILES_MATCHING PATTERN "*.mo")

install(FILES ${PROJECT_SOURCE_DIR}/packaging/transformer-workbench.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications RENAME ${TW_APP_ID}.desktop)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/transformer-workbench.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo RENAME ${TW_APP_ID}.metainfo.xml)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/transformer-workbench-mime.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME transformer-workbench.xml)

# Icons: the SVG, and PNGs rendered from it at build time (rsvg-convert, librsvg2-bin).
set(TW_ICON_SVG ${PROJECT_SOURCE_DIR}/packaging/transformer-workbench.svg)
install(FILES ${TW_ICON_SVG} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
find_program(RSVG_CONVERT rsvg-convert REQUIRED)
set(TW_ICON_PNGS)
foreach(px 16 22 24 32 48 64 128 256 512)
  set(png ${PROJECT_BINARY_DIR}/icons/${px}x${px}/transformer-workbench.png)
  add_custom_command(OUTPUT ${png}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/icons/${px}x${px}
                     COMMAND ${RSVG_CONVERT} -w ${px} -h ${px} -o ${png} ${TW_ICON_SVG}
                     DEPENDS ${TW_ICON_SVG} VERBATIM)
  list(APPEND TW_ICON_PNGS ${png})
  install(FILES ${png} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${px}x${px}/apps)
endforeach()
add_custom_target(icons ALL DEPENDS ${TW_ICON_PNGS})

# The manual page, written from the program's own --help at build time (help2man), compressed as Debian wants.
find_program(HELP2MAN help2man REQUIRED)
set(TW_MAN ${PROJECT_BINARY_DIR}/man/transformer-workbench.1)
add_custom_command(OUTPUT ${TW_MAN}.gz
                   COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
                   COMMAND ${PROJECT_SOURCE_DIR}/scripts/gen-man.sh $<TARGET_FILE:transformer-workbench> ${TW_MAN}
                   COMMAND gzip -9nf ${TW_MAN}
                   DEPENDS transformer-workbench ${PROJECT_SOURCE_DIR}/scripts/gen-man.sh VERBATIM)
add_custom_target(manpage ALL DEPENDS ${TW_MAN}.gz)
install(FILES ${TW_MAN}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# Debian's policy files: the copyright and a changelog (gzip -n, so the package is reproducible).
set(TW_CHANGELOG ${PROJECT_BINARY_DIR}/packaging/changelog.gz)
string(TIMESTAMP TW_BUILD_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${PROJECT_BINARY_DIR}/packaging/changelog
     "transformer-workbench (${TW_VERSION_FULL}) unstable; urgency=medium\n\n"
     "  * Built from commit ${TW_GIT_COMMIT}.\n\n"
     " -- Transformer Workbench developers <developers@transformer-workbench.invalid>  ${TW_BUILD_DATE}\n")
add_custom_command(OUTPUT ${TW_CHANGELOG}
                   COMMAND gzip -9nkf ${PROJECT_BINARY_DIR}/packaging/changelog
                   DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog VERBATIM)
add_custom_target(changelog ALL DEPENDS ${TW_CHANGELOG})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright ${TW_CHANGELOG}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/transformer-workbench)  # DOCDIR would use the CMake project name

# [SECTION] CPack: cpack -G DEB from the build tree (configure with -DCMAKE_INSTALL_PREFIX=/usr for a package)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME transformer-workbench)
set(CPACK_PACKAGE_VERSION ${TW_VERSION_FULL})
set(CPACK_PACKAGE_VENDOR "The Transformer Workbench developers")
set(CPACK_PACKAGE_CONTACT "Transformer Workbench developers <developers@transformer-workbench.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "explore the math inside modern large language models")
# CPack writes the summary as the synopsis line and indents these lines below it.
set(CPACK_PACKAGE_DESCRIPTION
    "Transformer Workbench is a desktop application in which students, lecturers\n"
    "and engineers explore the math inside modern LLMs by dragging sliders:\n"
    "softmax and the square-root scale, RoPE, ALiBi, attention masks, grouped-query\n"
    "attention, LoRA, FlashAttention, the roofline of inference, mixture of experts\n"
    "and tokenizers. A LLaMA-style forward pass can be stepped through tensor by\n"
    "tensor, a small transformer trains live, and every figure exports as PNG, SVG\n"
    "and CSV. The interface is in English and Simplified Chinese.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends on the shared libraries, from dpkg-shlibdeps
# The fonts are opened by path at run time, so dpkg-shlibdeps cannot see them.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core, fonts-dejavu-extra, fonts-noto-cjk")
# The text corpora (Tang poems, Song ci, quotations, the LoRA panel's new English text) are read from these at run
# time; without them those panels say which package is missing and the rest works.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fortunes-zh, fortunes")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_INSTALL_DIRECTORY transformer-workbench)
include(CPack)
