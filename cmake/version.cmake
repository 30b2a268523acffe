# The version of this build, from git when the source is a git checkout:
#   TW_VERSION_FULL  0.1.0 on a tag v0.1.0; 0.1.0+git<count>.<hash> between tags or without tags; 0.1.0 without git
#   TW_GIT_COMMIT    the abbreviated commit hash (with "-dirty" when the tree has changes), or "unknown"
# Debian versions must start with a digit and may contain '+' and '.', so these are usable as package versions.
# Computed at configure time: re-run cmake (scripts/package.sh does) before packaging a new commit.
set(TW_VERSION_FULL "${PROJECT_VERSION}")
set(TW_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --abbrev=9
                  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" OUTPUT_VARIABLE _tw_commit
                  RESULT_VARIABLE _tw_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_tw_rc EQUAL 0)
    set(TW_GIT_COMMIT "${_tw_commit}")
  endif()
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --tags --match "v[0-9]*" --long
                  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" OUTPUT_VARIABLE _tw_describe
                  RESULT_VARIABLE _tw_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_tw_rc EQUAL 0 AND _tw_describe MATCHES "^v([0-9][^-]*)-([0-9]+)-g([0-9a-f]+)$")
    if(CMAKE_MATCH_2 STREQUAL "0")
      set(TW_VERSION_FULL "${CMAKE_MATCH_1}")
    else()
      set(TW_VERSION_FULL "${CMAKE_MATCH_1}+git${CMAKE_MATCH_2}.${CMAKE_MATCH_3}")
    endif()
  else()
    # No release tag yet: the project version plus the commit count and hash, so every commit sorts after the last.
    execute_process(COMMAND "${GIT_EXECUTABLE}" rev-list --count HEAD
                    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" OUTPUT_VARIABLE _tw_count
                    RESULT_VARIABLE _tw_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=9 HEAD
                    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" OUTPUT_VARIABLE _tw_hash
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_tw_rc EQUAL 0)
      set(TW_VERSION_FULL "${PROJECT_VERSION}+git${_tw_count}.${_tw_hash}")
    endif()
  endif()
endif()
message(STATUS "Transformer Workbench version ${TW_VERSION_FULL} (commit ${TW_GIT_COMMIT})")
