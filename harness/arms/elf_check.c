/*
 * elf_check.c - an ELF file's headers against its size (elf_check.h).
 *
 * Every field is read with memcpy from the file's bytes (no alignment is
 * assumed) and every end computed as offset + size is checked for
 * wrapping before it is compared with the size.
 */
#include "arms/elf_check.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>

#include "common/diag.h"

/* Whether [off, off + n) lies within a file of size bytes. */
static bool within(uint64_t off, uint64_t n, size_t size)
{
	return off <= size && n <= size - off;
}

/* A table of count entries of entsize bytes at off (entsize must be the
 * struct abbench reads). */
static bool table_ok(const char *what, uint64_t off, unsigned count, unsigned entsize, size_t want, size_t size,
		     char *err, size_t len)
{
	if (count == 0)
		return true;
	if (entsize != want)
		return ab_fail_text(err, len, "damaged ELF file: %s entries of %u bytes, not %zu", what, entsize, want);
	if (!within(off, (uint64_t)count * entsize, size))
		return ab_fail_text(err, len,
				    "damaged ELF file: the %s table (offset %llu, %u entries) ends past the end of the file "
				    "(%zu bytes; a truncated copy?)",
				    what, (unsigned long long)off, count, size);
	return true;
}

static bool segments_ok(const unsigned char *data, size_t size, const Elf64_Ehdr *eh, char *err, size_t len)
{
	if (!table_ok("program header", eh->e_phoff, eh->e_phnum, eh->e_phentsize, sizeof(Elf64_Phdr), size, err, len))
		return false;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, data + eh->e_phoff + (size_t)i * sizeof ph, sizeof ph);
		if (!within(ph.p_offset, ph.p_filesz, size))
			return ab_fail_text(err, len,
					    "damaged ELF file: program header %u (offset %llu, %llu bytes) ends past the end "
					    "of the file (%zu bytes; a truncated copy?)",
					    i, (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz, size);
	}
	return true;
}

static bool sections_ok(const unsigned char *data, size_t size, const Elf64_Ehdr *eh, char *err, size_t len)
{
	if (!table_ok("section header", eh->e_shoff, eh->e_shnum, eh->e_shentsize, sizeof(Elf64_Shdr), size, err, len))
		return false;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr sh;
		memcpy(&sh, data + eh->e_shoff + (size_t)i * sizeof sh, sizeof sh);
		if (sh.sh_type != SHT_NOBITS && !within(sh.sh_offset, sh.sh_size, size))
			return ab_fail_text(err, len,
					    "damaged ELF file: section %u (offset %llu, %llu bytes) ends past the end of the "
					    "file (%zu bytes; a truncated copy?)",
					    i, (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size, size);
	}
	return true;
}

bool elf_check_bounds(const unsigned char *data, size_t size, char *err, size_t len)
{
	Elf64_Ehdr eh;
	if (size < SELFMAG || memcmp(data, ELFMAG, SELFMAG) != 0)
		return true; /* not ELF: dlopen says so */
	if (size >= EI_NIDENT && (data[EI_CLASS] != ELFCLASS64 || data[EI_DATA] != ELFDATA2LSB))
		return true; /* another class or byte order: dlopen refuses it from the header */
	if (size < sizeof eh)
		return ab_fail_text(err, len, "damaged ELF file: %zu bytes, shorter than its ELF header (%zu)", size,
				    sizeof eh);
	memcpy(&eh, data, sizeof eh);
	return segments_ok(data, size, &eh, err, len) && sections_ok(data, size, &eh, err, len);
}
