# The installed package: find_package(collc) with imported targets
# (collc::collrt, collc::collrt_core, collc::collc_pmpi and, when the
# compiler is built, collc::collc), collc_add_plan, and collrt.pc for
# builds without CMake.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(COLLC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/collc)
install(EXPORT collcTargets NAMESPACE collc:: DESTINATION ${COLLC_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/collcConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/collcConfig.cmake
                              INSTALL_DESTINATION ${COLLC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/collcConfigVersion.cmake
                                 VERSION ${COLLC_VERSION_MAJOR}.${COLLC_VERSION_MINOR}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/collcConfig.cmake
              ${PROJECT_BINARY_DIR}/collcConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/collcPlan.cmake
        DESTINATION ${COLLC_CMAKE_DIR})

# pkg-config: the runtime for plain makefiles (compile with mpicc, which
# brings MPI itself)
configure_file(${CMAKE_CURRENT_LIST_DIR}/collrt.pc.in ${PROJECT_BINARY_DIR}/collrt.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/collrt-shared.pc.in ${PROJECT_BINARY_DIR}/collrt-shared.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/collrt.pc ${PROJECT_BINARY_DIR}/collrt-shared.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Installs into a temporary prefix and builds examples/embed against it, as
# a user would (needs the compiler for collc_add_plan).
if(TARGET collc AND BUILD_TESTING)
  add_test(NAME package.install
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/test-install.sh ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR}/examples/embed ${MPIEXEC_EXECUTABLE})
  set_tests_properties(package.install PROPERTIES TIMEOUT 600)
  # examples/fft-transpose the same way (needs FFTW: skipped, 77, without)
  add_test(NAME example.fft-transpose
           COMMAND sh ${PROJECT_SOURCE_DIR}/examples/fft-transpose/test-fft.sh ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR}/examples/fft-transpose ${MPIEXEC_EXECUTABLE})
  set_tests_properties(example.fft-transpose PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()
