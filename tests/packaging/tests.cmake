# The installed package, two ways: `cpack -G DEB` unpacked with `dpkg -x` (its Depends checked too), and
# `cmake --install` into a scratch prefix. In both, each tool runs from the installed tree and the man
# pages, completions and examples are where they belong. Both run the install rules over the build
# folder, so they take turns.
add_test(NAME packaging/deb COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/packaging/deb.sh ${CMAKE_BINARY_DIR})
add_test(NAME packaging/install COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/packaging/install.sh ${CMAKE_BINARY_DIR})
set_tests_properties(packaging/deb packaging/install PROPERTIES TIMEOUT 300 RESOURCE_LOCK hetsched-install)
set_tests_properties(packaging/deb PROPERTIES SKIP_RETURN_CODE 77)
