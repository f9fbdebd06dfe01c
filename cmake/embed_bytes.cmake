# cmake -DINPUT=file -DOUTPUT=file.c -DNAME=symbol -P embed_bytes.cmake
#
# Writes a C file defining `const unsigned char NAME[]` with INPUT's bytes and
# `const size_t NAME_size`, so a binary (the compiled BPF program) can be linked into
# the library with nothing but CMake at build time.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# sixteen bytes a line (CMake's regular expressions have no {16})
string(REPEAT "0x[0-9a-f][0-9a-f]," 16 line)
string(REGEX REPLACE "(${line})" "\\1\n    " bytes "${bytes}")
string(REGEX REPLACE ",\n    $" "," bytes "${bytes}")
get_filename_component(input_name ${INPUT} NAME)
file(WRITE ${OUTPUT}
  "/* Generated from ${input_name} by cmake/embed_bytes.cmake: do not edit. */\n"
  "#include <stddef.h>\n\n"
  "const unsigned char ${NAME}[] __attribute__((aligned(8))) = {\n    ${bytes}\n};\n"
  "const size_t ${NAME}_size = ${size};\n")
