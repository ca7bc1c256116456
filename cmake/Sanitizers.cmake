# HETSCHED_SANITIZE: AddressSanitizer and UndefinedBehaviorSanitizer (with float-cast-overflow) on
# everything built here; any report aborts the test that caused it. HETSCHED_FUZZ adds libFuzzer's
# coverage instrumentation (tests/fuzz links the fuzzer itself). Both need clang.
option(HETSCHED_SANITIZE "Build with -fsanitize=address,undefined (clang)" OFF)
option(HETSCHED_FUZZ "Build the libFuzzer targets under tests/fuzz (clang; implies HETSCHED_SANITIZE)" OFF)
if(HETSCHED_FUZZ)
  set(HETSCHED_SANITIZE ON)
endif()
if(HETSCHED_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "HETSCHED_SANITIZE and HETSCHED_FUZZ need clang: configure with CXX=clang++")
  endif()
  set(HETSCHED_SANITIZERS -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all)
  add_compile_options(${HETSCHED_SANITIZERS} -fno-omit-frame-pointer -g)
  add_link_options(${HETSCHED_SANITIZERS})
  if(HETSCHED_FUZZ)
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
endif()
