/*
 * test_elf_check.c - a shared library's ELF headers against its size:
 * a whole image passes, every cut that leaves a header, a segment or a
 * section past the end is named, offsets that wrap are caught, and what
 * is not 64-bit little-endian ELF is left to dlopen.
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arms/elf_check.h"

/* An image of 4096 bytes: the ELF header, 2 program headers at 64 (the
 * second a segment at 1024 of 2048 bytes), 3 section headers at 3072 (a
 * .bss of SHT_NOBITS far past the end among them). */
static unsigned char img[4096];

static void build(void)
{
	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT, .e_phoff = 64,
			  .e_shoff = 3072, .e_ehsize = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr),
			  .e_phnum = 2, .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 3 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	Elf64_Phdr ph[2] = { { .p_type = PT_LOAD, .p_offset = 0, .p_filesz = 1024, .p_memsz = 1024 },
			     { .p_type = PT_LOAD, .p_offset = 1024, .p_filesz = 2048, .p_memsz = 8192 } };
	Elf64_Shdr sh[3] = { { .sh_type = SHT_NULL },
			     { .sh_type = SHT_PROGBITS, .sh_offset = 1024, .sh_size = 2048 },
			     { .sh_type = SHT_NOBITS, .sh_offset = 1u << 30, .sh_size = 1u << 30 } };
	memset(img, 0, sizeof img);
	memcpy(img, &eh, sizeof eh);
	memcpy(img + 64, ph, sizeof ph);
	memcpy(img + 3072, sh, sizeof sh);
}

static void fails(size_t size, const char *want)
{
	char err[256] = "";
	assert_false(elf_check_bounds(img, size, err, sizeof err));
	if (strcmp(err, want) != 0)
		fail_msg("size %zu:\n got: %s\nwant: %s", size, err, want);
}

static void test_whole_and_cut(void **state)
{
	(void)state;
	char err[256] = "";
	build();
	assert_true(elf_check_bounds(img, sizeof img, err, sizeof err));
	assert_true(elf_check_bounds(img, 3072 + 3 * sizeof(Elf64_Shdr), err, sizeof err));
	fails(3072 + 3 * sizeof(Elf64_Shdr) - 1, "damaged ELF file: the section header table (offset 3072, 3 entries) "
						 "ends past the end of the file (3263 bytes; a truncated copy?)");
	fails(3000, "damaged ELF file: program header 1 (offset 1024, 2048 bytes) ends past the end of the file (3000 "
		    "bytes; a truncated copy?)");
	fails(100, "damaged ELF file: the program header table (offset 64, 2 entries) ends past the end of the file (100 "
		   "bytes; a truncated copy?)");
	fails(63, "damaged ELF file: 63 bytes, shorter than its ELF header (64)");
	fails(5, "damaged ELF file: 5 bytes, shorter than its ELF header (64)");
}

static void put_phdr(int i, uint64_t off, uint64_t size)
{
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_offset = off, .p_filesz = size };
	memcpy(img + 64 + (size_t)i * sizeof ph, &ph, sizeof ph);
}

static void test_hostile_headers(void **state)
{
	(void)state;
	build();
	put_phdr(1, UINT64_MAX - 10, 100); /* offset + size wraps */
	fails(sizeof img, "damaged ELF file: program header 1 (offset 18446744073709551605, 100 bytes) ends past the end "
			  "of the file (4096 bytes; a truncated copy?)");
	put_phdr(1, 1024, UINT64_MAX);
	fails(sizeof img, "damaged ELF file: program header 1 (offset 1024, 18446744073709551615 bytes) ends past the end "
			  "of the file (4096 bytes; a truncated copy?)");
	build();
	Elf64_Shdr sh = { .sh_type = SHT_DYNSYM, .sh_offset = 4000, .sh_size = 97 };
	memcpy(img + 3072 + 2 * sizeof sh, &sh, sizeof sh);
	fails(sizeof img, "damaged ELF file: section 2 (offset 4000, 97 bytes) ends past the end of the file (4096 bytes; "
			  "a truncated copy?)");
	build();
	uint16_t entsize = 40;
	memcpy(img + offsetof(Elf64_Ehdr, e_phentsize), &entsize, 2);
	fails(sizeof img, "damaged ELF file: program header entries of 40 bytes, not 56");
	build();
	uint64_t shoff = UINT64_MAX - 8;
	memcpy(img + offsetof(Elf64_Ehdr, e_shoff), &shoff, 8);
	fails(sizeof img, "damaged ELF file: the section header table (offset 18446744073709551607, 3 entries) ends past "
			  "the end of the file (4096 bytes; a truncated copy?)");
}

/* Not ELF, 32-bit ELF, big-endian ELF: dlopen's to refuse. */
static void test_left_to_dlopen(void **state)
{
	(void)state;
	char err[64] = "";
	assert_true(elf_check_bounds((const unsigned char *)"[scenario]\n", 11, err, sizeof err));
	assert_true(elf_check_bounds((const unsigned char *)"\x7f" "EL", 3, err, sizeof err));
	build();
	img[EI_CLASS] = ELFCLASS32;
	assert_true(elf_check_bounds(img, 100, err, sizeof err));
	build();
	img[EI_DATA] = ELFDATA2MSB;
	assert_true(elf_check_bounds(img, 100, err, sizeof err));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_and_cut),
		cmocka_unit_test(test_hostile_headers),
		cmocka_unit_test(test_left_to_dlopen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
