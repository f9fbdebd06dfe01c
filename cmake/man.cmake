# Manual pages for shimview, shimrun and shim-info (share/man/man1), made at build time
# by help2man (Debian: help2man) from each tool's --help, so they say what the tools
# say; cmake/man-include.sh adds shimview's commands and a SEE ALSO naming the installed
# documents. Without help2man the build goes on without them, and says so.
find_program(HELP2MAN help2man)
if(NOT HELP2MAN)
  message(STATUS "help2man not found: no manual pages (Debian: apt-get install help2man)")
  return()
endif()

set(SHIM_MAN_DIR ${PROJECT_BINARY_DIR}/man)
set(shim_man_pages)
function(shim_man_page tool description)
  set(page ${SHIM_MAN_DIR}/${tool}.1)
  set(include ${SHIM_MAN_DIR}/${tool}.h2m)
  add_custom_command(OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${SHIM_MAN_DIR}
    COMMAND sh ${PROJECT_SOURCE_DIR}/cmake/man-include.sh ${tool} $<TARGET_FILE:${tool}>
            ${CMAKE_INSTALL_FULL_DOCDIR} > ${include}
    COMMAND ${HELP2MAN} --no-info --section=1 --manual=shim --source=shim
            --version-string=${PROJECT_VERSION} --name=${description} --include=${include}
            --output=${page} $<TARGET_FILE:${tool}>
    DEPENDS ${tool} ${PROJECT_SOURCE_DIR}/cmake/man-include.sh
    COMMENT "help2man: ${tool}.1" VERBATIM)
  set(shim_man_pages ${shim_man_pages} ${page} PARENT_SCOPE)
endfunction()

shim_man_page(shimview "read shim profiles: reports, figures, comparisons and exports")
shim_man_page(shimrun "run a program observed by shim from its start, unchanged")
shim_man_page(shim-info "what this machine offers shim: counters, topology, TSC, BPF")
add_custom_target(man ALL DEPENDS ${shim_man_pages})
install(FILES ${shim_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
