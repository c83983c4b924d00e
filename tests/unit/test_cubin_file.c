/*
 * test_cubin_file.c - reading compiled binaries without a GPU: a cubin
 * ELF built here byte by byte (both e_flags layouts of the architecture,
 * KPARAM_INFO attributes in any order, damaged tables, SHT_NOBITS sections
 * pointing outside the file), PTX texts (Triton's pointer annotations,
 * arrays and their counts, an entry without parameters), a fatbin's
 * magic, and files that are none of these.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arms/cubin_file.h"

static unsigned char img[4096];
static size_t img_len, info_at, shoff_at; /* where build_cubin put .nv.info.k and the section table */

static void put16(size_t at, unsigned v)
{
	img[at] = (unsigned char)v;
	img[at + 1] = (unsigned char)(v >> 8);
}

static void put32(size_t at, uint32_t v)
{
	put16(at, v & 0xffff);
	put16(at + 2, v >> 16);
}

static void put64(size_t at, uint64_t v)
{
	put32(at, (uint32_t)v);
	put32(at + 4, (uint32_t)(v >> 32));
}

/* One KPARAM_INFO attribute: ordinal, size in bytes. */
static size_t kparam(size_t at, unsigned ordinal, unsigned size)
{
	img[at] = 4;
	img[at + 1] = 0x17;
	put16(at + 2, 12);
	put32(at + 4, 0);
	put16(at + 8, ordinal);
	put16(at + 10, ordinal * 8);
	put32(at + 12, (uint32_t)size << 18 | 0x1f000);
	return at + 16;
}

static void section(int i, size_t shoff, uint32_t name, uint32_t type, uint64_t off, uint64_t size)
{
	size_t sh = shoff + 64 * (size_t)i;
	put32(sh, name);
	put32(sh + 4, type);
	put64(sh + 24, off);
	put64(sh + 32, size);
}

/* A cubin with kernels "k" (parameters of 8, 8, 4 bytes, attributes out of
 * order, an HVAL attribute between them) and "other" (none). abi picks the
 * e_flags layout: 7 keeps the sm in bits 0-7, 8 in bits 8-15. */
static void build_cubin(int abi, int sm)
{
	static const char names[] = "\0.shstrtab\0.nv.info.k\0.nv.info.other\0.text.k";
	memset(img, 0, sizeof img);
	memcpy(img, "\x7f" "ELF", 4);
	img[4] = 2, img[5] = 1, img[6] = 1, img[7] = 0x41, img[8] = (unsigned char)abi;
	put16(16, 2);
	put16(18, 190);
	put32(20, 1);
	put32(0x30, abi >= 8 ? 0x06000004u | (uint32_t)sm << 8 : 0x00000500u | (uint32_t)sm | (uint32_t)sm << 16);
	put16(0x34, 64);
	memcpy(img + 64, names, sizeof names);
	size_t info = 64 + sizeof names + 3, p = info;
	info_at = info;
	p = kparam(p, 2, 4);
	img[p] = 3, img[p + 1] = 0x1b, put16(p + 2, 0xff), p += 4;
	p = kparam(p, 0, 8);
	p = kparam(p, 1, 8);
	size_t shoff = (p + 7) / 8 * 8;
	shoff_at = shoff;
	section(1, shoff, 1, 3, 64, sizeof names);
	section(2, shoff, 11, 0x70000000, info, p - info);
	section(3, shoff, 22, 0x70000000, p, 0);
	section(4, shoff, 37, 1, p, 0);
	put64(0x28, shoff);
	put16(0x3a, 64);
	put16(0x3c, 5);
	put16(0x3e, 1);
	img_len = shoff + 5 * 64;
}

static void inspect_ok(const char *kernel, struct cubin_file_info *info)
{
	char err[256] = "";
	if (!cubin_file_inspect(img, img_len, kernel, info, err, sizeof err))
		fail_msg("inspect '%s': %s", kernel, err);
}

static void inspect_fails(const char *kernel, const char *want)
{
	struct cubin_file_info info;
	char err[256] = "";
	assert_false(cubin_file_inspect(img, img_len, kernel, &info, err, sizeof err));
	if (!strstr(err, want))
		fail_msg("got: %s\nwant: %s", err, want);
}

static void test_cubin(void **state)
{
	(void)state;
	struct cubin_file_info info;
	build_cubin(8, 90);
	inspect_ok("k", &info);
	assert_int_equal(info.kind, CUBIN_FILE_CUBIN);
	assert_int_equal(info.sm, 90);
	assert_int_equal(info.n_params, 3);
	assert_int_equal(info.param_size[0], 8);
	assert_int_equal(info.param_size[1], 8);
	assert_int_equal(info.param_size[2], 4);
	assert_string_equal(info.kernels, "k, other");
	inspect_ok("other", &info);
	assert_int_equal(info.n_params, 0);
	inspect_fails("kk", "no kernel 'kk' in the cubin (kernels: k, other)");
	build_cubin(7, 80);
	inspect_ok("k", &info);
	assert_int_equal(info.sm, 80);
	assert_string_equal(cubin_file_kind_str(info.kind), "cubin");
}

static void test_damaged_cubin(void **state)
{
	(void)state;
	build_cubin(8, 90);
	put16(18, 62); /* x86-64 */
	inspect_fails("k", "an ELF file for machine 62, not an NVIDIA cubin");
	build_cubin(8, 90);
	img[4] = 1;
	inspect_fails("k", "not a 64-bit little-endian ELF file");
	build_cubin(8, 90);
	img_len -= 64; /* the last section header is cut off */
	inspect_fails("k", "damaged cubin: section table outside the file");
	build_cubin(8, 90);
	put64(0x28 + 0, 1u << 30);
	inspect_fails("k", "damaged cubin: section table outside the file");
	build_cubin(8, 90);
	put64(shoff_at + 2 * 64 + 32, 4000); /* .nv.info.k's size past the end */
	inspect_fails("k", "damaged cubin: section 2 lies outside the file");
	build_cubin(8, 90);
	put16(info_at + 2, 0xffff); /* the first attribute claims 65535 bytes */
	inspect_fails("k", "damaged cubin: attribute past the end of .nv.info.k");
}

/* Sections of type SHT_NOBITS (8) have no bytes in the file, whatever
 * their offset: one that is never read passes, the section names or a
 * kernel's .nv.info as NOBITS with an offset far outside the file are
 * refused (issue 19, row 4: both were read out of bounds, 2^40 bytes
 * past the image, and crashed). */
static void test_nobits_sections(void **state)
{
	(void)state;
	struct cubin_file_info info;
	build_cubin(8, 90);
	put32(shoff_at + 4 * 64 + 4, 8); /* .text.k as NOBITS (a .bss), offset far away */
	put64(shoff_at + 4 * 64 + 24, (uint64_t)1 << 40);
	put64(shoff_at + 4 * 64 + 32, 4096);
	inspect_ok("k", &info);
	assert_int_equal(info.n_params, 3);
	build_cubin(8, 90);
	put32(shoff_at + 1 * 64 + 4, 8); /* the section names */
	put64(shoff_at + 1 * 64 + 24, (uint64_t)1 << 40);
	inspect_fails("k", "damaged cubin: the section names (section 1) have no bytes in the file");
	build_cubin(8, 90);
	put32(shoff_at + 2 * 64 + 4, 8); /* .nv.info.k */
	put64(shoff_at + 2 * 64 + 24, (uint64_t)1 << 40);
	inspect_fails("k", "damaged cubin: .nv.info.k has no bytes in the file");
	inspect_ok("other", &info); /* another kernel's info is still read */
}

static void set_text(const char *text)
{
	img_len = strlen(text);
	memcpy(img, text, img_len + 1);
}

static void test_ptx(void **state)
{
	(void)state;
	struct cubin_file_info info;
	set_text("//\n.version 8.4\n.target sm_90a\n.address_size 64\n\n"
		 "\t// .globl\tk\n.visible .entry k(\n"
		 "\t.param .u64 .ptr .global .align 1 k_param_0,\n"
		 "\t.param .u32 k_param_1,\n"
		 "\t.param .f32 k_param_2,\n"
		 "\t.param .align 8 .b8 k_param_3[16],\n"
		 "\t.param .u64 .ptr .global .align 1 k_param_4\n)\n.maxntid 256, 1, 1\n{\n\tret;\n}\n"
		 ".visible .entry empty()\n{\n\tret;\n}\n.entry bare\n{\n\tret;\n}\n");
	inspect_ok("k", &info);
	assert_int_equal(info.kind, CUBIN_FILE_PTX);
	assert_int_equal(info.sm, 90);
	assert_int_equal(info.n_params, 5);
	int want[5] = { 8, 4, 4, 16, 8 };
	for (int i = 0; i < 5; i++)
		assert_int_equal(info.param_size[i], want[i]);
	assert_string_equal(info.kernels, "k, empty, bare");
	inspect_ok("empty", &info);
	assert_int_equal(info.n_params, 0);
	inspect_ok("bare", &info);
	assert_int_equal(info.n_params, 0);
	inspect_fails("ke", "no kernel 'ke' in the ptx (entries: k, empty, bare)");
	set_text(".target sm_80\n.entry k(\n.param .u64 a\n");
	inspect_fails("k", "damaged ptx: the parameter list has no ')'");
}

/* Array counts in checked arithmetic (issue 19, row 4): 8 x 2^30 bytes
 * overflowed an int, 2^32 + 1 was read as 1 (8 bytes); a count that is 0,
 * not a number, or makes a parameter larger than a kernel's 32764 bytes
 * is refused. The largest that fits is taken. */
static void test_ptx_array_counts(void **state)
{
	(void)state;
	struct cubin_file_info info;
	static const char *const bad[] = { "p[1073741824]", "p[4294967297]", "p[0]", "p[]", "p[12x]", "p[-1]",
					   "p[4096]", "p[99999999999999999999999]" };
	char text[256];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text, ".target sm_90\n.entry k(\n.param .u32 n,\n.param .u64 %s\n)\n{\n}\n", bad[i]);
		set_text(text);
		inspect_fails("k", "damaged ptx: parameter 1 ('.param .u64 p[");
		inspect_fails("k", "is no array of 1 to 32764 bytes");
	}
	set_text(".target sm_90\n.entry k(\n.param .u64 p[4095],\n.param .align 4 .b8 q[32764]\n)\n{\n}\n");
	inspect_ok("k", &info);
	assert_int_equal(info.param_size[0], 8 * 4095);
	assert_int_equal(info.param_size[1], 32764);
	set_text(".target sm_99999999999999999999\n.entry k()\n{\n}\n");
	inspect_ok("k", &info);
	assert_int_equal(info.sm, 0); /* no architecture, not a wrapped number */
}

static void test_other_files(void **state)
{
	(void)state;
	struct cubin_file_info info;
	memcpy(img, "\x50\xed\x55\xba\x01\x00\x10\x00", 8);
	img_len = 64;
	inspect_ok("k", &info);
	assert_int_equal(info.kind, CUBIN_FILE_FATBIN);
	assert_int_equal(info.sm, 0);
	assert_int_equal(info.n_params, -1);
	set_text("[scenario]\nname = x\n");
	inspect_fails("k", "neither a cubin (ELF), a fatbin nor PTX text with a .target and an .entry");
	memcpy(img, "ab\0cd", 5);
	img_len = 5;
	inspect_fails("k", "neither a cubin (ELF), a fatbin nor PTX text");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cubin),
		cmocka_unit_test(test_damaged_cubin),
		cmocka_unit_test(test_nobits_sections),
		cmocka_unit_test(test_ptx),
		cmocka_unit_test(test_ptx_array_counts),
		cmocka_unit_test(test_other_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
