# libringbus_c.so as the imported target ringbus_c: RINGBUS_LIBRARY if given, else what
# `cargo build -p ringbus-c` makes (run at every build, as part of `all`: cargo does nothing
# when the library is current).
if(RINGBUS_LIBRARY)
  if(NOT EXISTS "${RINGBUS_LIBRARY}")
    message(FATAL_ERROR "RINGBUS_LIBRARY=${RINGBUS_LIBRARY} does not exist: build it with "
                        "`cargo build --release -p ringbus-c` (target/release/libringbus_c.so), or leave RINGBUS_LIBRARY empty")
  endif()
  set(ringbus_library "${RINGBUS_LIBRARY}")
else()
  find_program(RINGBUS_CARGO cargo HINTS "$ENV{HOME}/.cargo/bin")
  if(NOT RINGBUS_CARGO)
    message(FATAL_ERROR "cargo not found: install Rust (https://rustup.rs), or set RINGBUS_LIBRARY "
                        "to a libringbus_c.so built elsewhere")
  endif()
  if(RINGBUS_CARGO_PROFILE STREQUAL "dev")
    set(ringbus_profile_dir debug)
  else()
    set(ringbus_profile_dir "${RINGBUS_CARGO_PROFILE}")
  endif()
  set(ringbus_target_dir "${RINGBUS_REPOSITORY}/target")
  if(DEFINED ENV{CARGO_TARGET_DIR})
    set(ringbus_target_dir "$ENV{CARGO_TARGET_DIR}")
  endif()
  set(ringbus_library "${ringbus_target_dir}/${ringbus_profile_dir}/libringbus_c.so")
  add_custom_target(ringbus_cargo_build ALL
    COMMAND "${RINGBUS_CARGO}" build -p ringbus-c --locked --profile "${RINGBUS_CARGO_PROFILE}"
    WORKING_DIRECTORY "${RINGBUS_REPOSITORY}"
    BYPRODUCTS "${ringbus_library}"
    COMMENT "cargo build -p ringbus-c --profile ${RINGBUS_CARGO_PROFILE}"
    USES_TERMINAL)
endif()

add_library(ringbus_c SHARED IMPORTED GLOBAL)
# The library has no soname: link it as -lringbus_c, not by its path (which the
# executable would otherwise keep as its DT_NEEDED entry).
set_target_properties(ringbus_c PROPERTIES
  IMPORTED_LOCATION "${ringbus_library}"
  IMPORTED_NO_SONAME TRUE)
set(RINGBUS_LIBRARY_FILE "${ringbus_library}" CACHE INTERNAL "The libringbus_c.so this build uses")
