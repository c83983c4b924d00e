/*
 * elf_check.h - whether a shared library's ELF headers lie within its
 * file, checked on its bytes before dlopen maps it.
 *
 * dlopen trusts the program headers: a truncated copy of a library (a
 * partial download, a full disk) has segments that end past the end of
 * the file, and touching their pages kills the process with SIGBUS before
 * abbench can say anything. This check reads the ELF header, the program
 * header table and every segment's file range, and the section header
 * table and every section's range (SHT_NOBITS excepted), against the
 * file's size, so such a file is bad input with a message instead.
 *
 * Only 64-bit little-endian ELF (what this host's dlopen loads) is read;
 * anything else passes, for dlopen to refuse by its own reason (it does
 * so from the header alone, mapping nothing).
 */
#ifndef AB_ELF_CHECK_H
#define AB_ELF_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* False with one line in err ("program header 3 (offset 4096, 8192
 * bytes) ends past the end of the file (8000 bytes)") when a header or a
 * range of data[0..size) lies outside it. */
bool elf_check_bounds(const unsigned char *data, size_t size, char *err, size_t len);

#endif
