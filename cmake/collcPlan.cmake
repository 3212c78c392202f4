# collc_add_plan(<target> <spec.yaml> [SYMBOL <name>])
# collc_add_plan(<target> SPEC <spec.yaml> [SYMBOL <name>])
#
# Compiles the spec with collc at build time into an object file defining
#   const unsigned char <name>[];  const unsigned long <name>_size;
# (collc --emit=obj), adds it to <target> and links collc::collrt. Load the
# plan with collrt_plan_load(<name>, <name>_size, &plan, &diag). <name>
# defaults to the spec's file name (a C identifier) followed by _plan.
function(collc_add_plan target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SPEC;SYMBOL" "")
  set(spec ${ARG_SPEC})
  if(NOT spec AND ARG_UNPARSED_ARGUMENTS)
    list(POP_FRONT ARG_UNPARSED_ARGUMENTS spec)
  endif()
  if(NOT spec OR ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "collc_add_plan(${target} ...): expected collc_add_plan(<target> "
                        "<spec.yaml> [SYMBOL <name>]); unexpected: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET collc::collc)
    message(FATAL_ERROR "collc_add_plan: this collc package has no compiler (collc::collc); "
                        "install collc built with COLLC_BUILD_COMPILER=ON")
  endif()
  get_filename_component(spec ${spec} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT ARG_SYMBOL)
    get_filename_component(stem ${spec} NAME_WE)
    string(MAKE_C_IDENTIFIER ${stem}_plan ARG_SYMBOL)
  endif()
  set(obj ${CMAKE_CURRENT_BINARY_DIR}/collc_plans/${target}/${ARG_SYMBOL}.o)
  add_custom_command(OUTPUT ${obj}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/collc_plans/${target}
                     COMMAND collc::collc ${spec} --emit=obj --symbol ${ARG_SYMBOL} -o ${obj}
                     DEPENDS ${spec} collc::collc
                     COMMENT "collc ${spec} -> ${ARG_SYMBOL}"
                     VERBATIM)
  set_source_files_properties(${obj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_sources(${target} PRIVATE ${obj})
  target_link_libraries(${target} PRIVATE collc::collrt)
endfunction()
