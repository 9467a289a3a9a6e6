# The shape every rankmap component shares, written once.
#
# rankmap_add_library(<name> SOURCES src... [PUBLIC libs...] [PRIVATE libs...])
#   a static library rankmap_<name>, alias rankmap::<name>, headers in
#   include/ (installed), warnings on, exported as rankmap::<name>.
# rankmap_add_tool(<executable> SOURCES src... LIBS libs...)
#   a thin command-line main, installed to bin/.
function(rankmap_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
  set(target rankmap_${name})
  add_library(${target} STATIC ${ARG_SOURCES})
  add_library(rankmap::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
  rankmap_warnings(${target})
  install(TARGETS ${target} EXPORT rankmapTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY include/rankmap DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# hwloc for a static library: linked in the build tree, named for consumers of
# the installed package (pkg-config targets are not exported).
set(RANKMAP_HWLOC $<BUILD_INTERFACE:PkgConfig::HWLOC> $<INSTALL_INTERFACE:hwloc>)

function(rankmap_add_tool exe)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${exe} ${ARG_SOURCES})
  target_link_libraries(${exe} PRIVATE ${ARG_LIBS})
  rankmap_warnings(${exe})
  install(TARGETS ${exe} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()
