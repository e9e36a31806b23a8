# `cmake --install`: the headers, libringbus_c.so, ringbusConfig.cmake with its version
# file (find_package(ringbus CONFIG)), and ringbus.pc (pkg-config --cflags --libs ringbus).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(FILES include/ringbus.h include/ringbus.hpp DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY include/ringbus DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(PROGRAMS "${RINGBUS_LIBRARY_FILE}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")

set(ringbus_config_dir "${CMAKE_INSTALL_LIBDIR}/cmake/ringbus")
configure_package_config_file(cmake/ringbusConfig.cmake.in "${CMAKE_CURRENT_BINARY_DIR}/ringbusConfig.cmake"
  INSTALL_DESTINATION "${ringbus_config_dir}"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/ringbusConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/ringbusConfig.cmake" "${CMAKE_CURRENT_BINARY_DIR}/ringbusConfigVersion.cmake"
  DESTINATION "${ringbus_config_dir}")

# ringbus.pc names the prefix given to `cmake --install --prefix`, known only at install
# time: configured twice, the placeholder @RINGBUS_PC_PREFIX@ kept the first time.
set(RINGBUS_PC_PREFIX "@RINGBUS_PC_PREFIX@")
configure_file(cmake/ringbus.pc.in "${CMAKE_CURRENT_BINARY_DIR}/ringbus.pc.in" @ONLY)
install(CODE "
  set(RINGBUS_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/ringbus.pc.in\" \"${CMAKE_CURRENT_BINARY_DIR}/ringbus.pc\" @ONLY)
  file(INSTALL \"${CMAKE_CURRENT_BINARY_DIR}/ringbus.pc\" DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")")
