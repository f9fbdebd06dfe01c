# Thread identity from BPF (libshim/thread_identity.c, docs/threads.md): optional.
#
# signals/sched_switch.bpf.c is compiled for the BPF target by clang and the object is
# written into a C array (cmake/embed_bytes.cmake: no xxd or other tool needed), which
# libshim hands to libbpf at run time. Without libbpf (>= 1.0) or a clang that targets
# BPF, thread_identity.c is built in the mode where opening says so, and the rest of
# shim builds unchanged.
#
# Sets SHIM_HAVE_BPF, SHIM_BPF_SOURCES (the generated .c to add to the library), and
# SHIM_PC_EXTRA_REQUIRES (" libbpf" for the pkg-config file's Requires.private).
option(SHIM_BPF "Thread identity from a BPF sched_switch program (needs libbpf and clang)" ON)
set(SHIM_HAVE_BPF OFF)
set(SHIM_BPF_SOURCES)
set(SHIM_PC_EXTRA_REQUIRES "")
if(SHIM_BPF)
  pkg_check_modules(LIBBPF IMPORTED_TARGET libbpf>=1.0)
  find_program(SHIM_BPF_CLANG NAMES clang clang-14 DOC "clang for the BPF target")
  # <linux/bpf.h> includes <asm/types.h>, which Debian keeps in the multiarch directory
  # that clang does not search when it compiles for -target bpf
  find_path(SHIM_ASM_INCLUDE_DIR asm/types.h)
  set(bpf_target_ok OFF)
  if(SHIM_BPF_CLANG)
    execute_process(COMMAND ${SHIM_BPF_CLANG} -print-targets OUTPUT_VARIABLE clang_targets
                    ERROR_QUIET)
    if(clang_targets MATCHES "[ \t]bpf[ \t]")
      set(bpf_target_ok ON)
    endif()
  endif()
  if(LIBBPF_FOUND AND bpf_target_ok AND SHIM_ASM_INCLUDE_DIR)
    set(SHIM_HAVE_BPF ON)
  else()
    message(STATUS "thread identity from BPF: off (libbpf >= 1.0: ${LIBBPF_FOUND}, "
                   "clang for the BPF target: ${bpf_target_ok}, asm/types.h: ${SHIM_ASM_INCLUDE_DIR})")
  endif()
endif()

if(SHIM_HAVE_BPF)
  set(bpf_src ${PROJECT_SOURCE_DIR}/signals/sched_switch.bpf.c)
  set(bpf_obj ${PROJECT_BINARY_DIR}/signals/sched_switch.bpf.o)
  set(bpf_c ${PROJECT_BINARY_DIR}/signals/sched_switch_bpf.c)
  set(bpf_includes -I${PROJECT_SOURCE_DIR} -I${SHIM_ASM_INCLUDE_DIR})
  foreach(dir ${LIBBPF_INCLUDE_DIRS})
    list(APPEND bpf_includes -I${dir})
  endforeach()
  add_custom_command(OUTPUT ${bpf_obj}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/signals
    COMMAND ${SHIM_BPF_CLANG} -target bpf -O2 -g -Wall -Wextra ${bpf_includes}
            -c ${bpf_src} -o ${bpf_obj}
    DEPENDS ${bpf_src} ${PROJECT_SOURCE_DIR}/signals/sched_switch.h
    COMMENT "Compiling the sched_switch BPF program" VERBATIM)
  add_custom_command(OUTPUT ${bpf_c}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${bpf_obj} -DOUTPUT=${bpf_c} -DNAME=shim_sched_switch_bpf
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_bytes.cmake
    DEPENDS ${bpf_obj} ${PROJECT_SOURCE_DIR}/cmake/embed_bytes.cmake
    COMMENT "Embedding the sched_switch BPF program" VERBATIM)
  set(SHIM_BPF_SOURCES ${bpf_c})
  set(SHIM_PC_EXTRA_REQUIRES " libbpf")
endif()
