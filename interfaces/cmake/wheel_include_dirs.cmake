# Loaded into every interface package built in the venv (CMAKE_PROJECT_INCLUDE, tools/build_interfaces.py).
#
# The ROS 2 wheels from PyPI export CMake targets whose INTERFACE_INCLUDE_DIRECTORIES name the wheel
# builder's Python and NumPy include folders (/opt/python/cp3XX-cp3XX/...), which do not exist here: CMake
# refuses to generate ("includes non-existent path"). At the end of the package's CMakeLists, this drops
# every absolute include folder that does not exist from the imported targets and adds this
# interpreter's Python include folder in their place (rosidl_generator_py adds NumPy's for the package's
# own targets).
function(_humanoid_stack_fix_wheel_include_dirs)
  find_package(Python3 REQUIRED COMPONENTS Interpreter Development)
  get_property(_targets DIRECTORY "${CMAKE_SOURCE_DIR}" PROPERTY IMPORTED_TARGETS)
  foreach(_target IN LISTS _targets)
    get_target_property(_dirs ${_target} INTERFACE_INCLUDE_DIRECTORIES)
    if(NOT _dirs)
      continue()
    endif()
    set(_kept "")
    set(_dropped FALSE)
    foreach(_dir IN LISTS _dirs)
      if(IS_ABSOLUTE "${_dir}" AND NOT EXISTS "${_dir}")
        set(_dropped TRUE)
      else()
        list(APPEND _kept "${_dir}")
      endif()
    endforeach()
    if(_dropped)
      list(APPEND _kept ${Python3_INCLUDE_DIRS})
      list(REMOVE_DUPLICATES _kept)
      set_target_properties(${_target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_kept}")
    endif()
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _humanoid_stack_fix_wheel_include_dirs)
