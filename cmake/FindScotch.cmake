# Debian's libscotch-dev ships neither pkg-config nor a CMake config: look for it by hand.
# Never link libscotchmetisv5 next to libmetis: both define METIS_* symbols.
find_path(SCOTCH_INCLUDE_DIR scotch.h PATH_SUFFIXES scotch)
find_library(SCOTCH_LIBRARY scotch)
find_library(SCOTCHERR_LIBRARY scotcherr)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Scotch REQUIRED_VARS SCOTCH_LIBRARY SCOTCHERR_LIBRARY SCOTCH_INCLUDE_DIR)
if(Scotch_FOUND AND NOT TARGET Scotch::Scotch)
  add_library(Scotch::Scotch INTERFACE IMPORTED)
  set_target_properties(Scotch::Scotch PROPERTIES
    INTERFACE_LINK_LIBRARIES "${SCOTCH_LIBRARY};${SCOTCHERR_LIBRARY};pthread;z;m"
    INTERFACE_INCLUDE_DIRECTORIES ${SCOTCH_INCLUDE_DIR})
endif()
