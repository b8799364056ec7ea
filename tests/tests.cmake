# Test registration.  Files are discovered by glob, so adding a test is
# adding a file:
#   tests/unit/test_*.c       cmocka unit tests of core/ (one exe each)
#   tests/lua/*.lua           Lua API tests, run by `podsim run --unsafe`
#   tests/validation/*.lua    validation cases (public.md), same runner
#   tests/cli/*.sh            CLI end-to-end tests: bash FILE PODSIM SRC OUT
#   tests/bad/*.lua           bad-input corpus, checked by tests/bad/check.sh
#   tests/bench/bench_*.c     benchmarks, built here, run by build.sh bench
set(POD_TEST_OUT ${CMAKE_BINARY_DIR}/test-out)

if(CMOCKA_FOUND)
  file(GLOB unit_tests CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/test_*.c)
  foreach(src ${unit_tests})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE podlua PkgConfig::CMOCKA)
    add_test(NAME unit_${name} COMMAND ${name})
  endforeach()
  set_tests_properties(unit_test_run unit_test_mc PROPERTIES LABELS tsan)
endif()

foreach(kind lua validation)
  file(GLOB scripts CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/${kind}/*.lua)
  foreach(src ${scripts})
    get_filename_component(name ${src} NAME_WE)
    add_test(NAME ${kind}_${name}
      COMMAND podsim run ${src} --unsafe --quiet --out ${POD_TEST_OUT}/${kind}_${name})
  endforeach()
endforeach()

file(GLOB cli_tests CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/cli/*.sh)
foreach(src ${cli_tests})
  get_filename_component(name ${src} NAME_WE)
  add_test(NAME cli_${name}
    COMMAND bash ${src} $<TARGET_FILE:podsim> ${CMAKE_SOURCE_DIR} ${POD_TEST_OUT}/cli_${name})
endforeach()

file(GLOB bad_cases CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/bad/*.lua)
foreach(src ${bad_cases})
  get_filename_component(name ${src} NAME_WE)
  add_test(NAME bad_${name}
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/bad/check.sh $<TARGET_FILE:podsim> ${src} ${POD_TEST_OUT}/bad_${name})
endforeach()

file(GLOB benches CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/bench/bench_*.c)
foreach(src ${benches})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE podlua)
endforeach()

# ThreadSanitizer (./build.sh tsan runs ctest -L tsan): the runner, the
# Monte Carlo engine and the CLI tests whose studies run on worker threads.
foreach(t unit_test_run unit_test_run_remote unit_test_mc unit_test_mc_codec cli_study cli_harden_budget)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES LABELS tsan)
  endif()
endforeach()
