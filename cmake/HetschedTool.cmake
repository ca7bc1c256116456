# hetsched_tool(NAME): one binary from tools/NAME/main.cpp, linked to the library, installed.
function(hetsched_tool name)
  add_executable(${name} main.cpp)
  target_link_libraries(${name} PRIVATE hetsched_common)
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

# hetsched_embed(OUT VAR FILE...): a .cpp defining `extern const char* const VAR_<stem>` with each
# file's bytes, so the default catalog ships inside the binaries and is rebuilt when the CSV changes.
function(hetsched_embed out)
  set(body "// Generated from the data files named below; do not edit.\nnamespace hetsched::embedded {\n")
  foreach(file IN LISTS ARGN)
    get_filename_component(stem ${file} NAME_WE)
    file(READ ${file} text)
    string(REPLACE ")EMBED\"" ")EMB ED\"" text "${text}")
    string(APPEND body "extern const char* const ${stem}_csv;\nconst char* const ${stem}_csv = R\"EMBED(${text})EMBED\";\n")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  endforeach()
  string(APPEND body "}  // namespace hetsched::embedded\n")
  file(WRITE ${out}.tmp "${body}")
  configure_file(${out}.tmp ${out} COPYONLY)
endfunction()
