/*
 * cubin_file.c - reads cubin ELF headers and PTX entry lists (cubin_file.h).
 *
 * ELF: 64-bit little-endian, machine EM_CUDA (190). The architecture sits
 * in e_flags: bits 0-7 for ELF ABI version 7 (CUDA 12 and before), bits
 * 8-15 from version 8 on (CUDA 13), as LLVM's EF_CUDA_SM / EF_CUDA_SM_MASK
 * define them. A kernel NAME has a section .nv.info.NAME: a list of
 * attributes, each {u8 format, u8 attribute, then a u16 value, or for
 * format 4 (EIFMT_SVAL) a u16 length and that many bytes}. Attribute 0x17
 * (EIATTR_KPARAM_INFO) describes one parameter: u32 index, u16 ordinal,
 * u16 offset, u32 whose bits 18-31 are the size in bytes.
 *
 * Every offset read from the file is checked against its size first; a
 * SHT_NOBITS section has no bytes in the file and is never read. PTX
 * array counts are parsed in checked arithmetic, up to what a kernel's
 * parameters can hold.
 */
#include "arms/cubin_file.h"
#include "common/diag.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EM_CUDA 190
#define FATBIN_MAGIC 0xBA55ED50u
#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17

static uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void add_kernel(struct cubin_file_info *out, const char *name, size_t n)
{
	size_t used = strlen(out->kernels);
	if (used < sizeof out->kernels)
		snprintf(out->kernels + used, sizeof out->kernels - used, "%s%.*s", used ? ", " : "", (int)n, name);
}

/* ---- ELF ------------------------------------------------------------------ */

struct elf {
	const unsigned char *data;
	size_t size;
	uint64_t shoff;
	unsigned shnum, shentsize;
	const char *shstr; /* the section-name string table */
	size_t shstr_size;
};

static const unsigned char *section(const struct elf *e, unsigned i)
{
	return e->data + e->shoff + (uint64_t)i * e->shentsize;
}

#define SHT_NOBITS 8

/* Whether section i's bytes lie inside the file. A SHT_NOBITS section
 * (.bss, .nv.shared) has none there, whatever its offset says: it passes,
 * and is never read (section_bytes). */
static bool section_ok(const struct elf *e, unsigned i)
{
	const unsigned char *sh = section(e, i);
	uint64_t off = rd64(sh + 24), sz = rd64(sh + 32);
	return rd32(sh + 4) == SHT_NOBITS || (off <= e->size && sz <= e->size - off);
}

/* The bytes of section i, which must be in the file (not SHT_NOBITS, the
 * offset and size inside it: section_ok checked the latter). */
static bool section_bytes(const struct elf *e, unsigned i, const unsigned char **p, size_t *n)
{
	const unsigned char *sh = section(e, i);
	if (rd32(sh + 4) == SHT_NOBITS || !section_ok(e, i))
		return false;
	*p = e->data + rd64(sh + 24);
	*n = (size_t)rd64(sh + 32);
	return true;
}

static const char *section_name(const struct elf *e, unsigned i)
{
	uint32_t n = rd32(section(e, i));
	return n < e->shstr_size ? e->shstr + n : "";
}

static bool elf_open(const unsigned char *data, size_t size, struct elf *e, char *err, size_t len)
{
	if (size < 64 || data[4] != 2 || data[5] != 1)
		return ab_fail_text(err, len, "not a 64-bit little-endian ELF file");
	if (rd16(data + 18) != EM_CUDA)
		return ab_fail_text(err, len, "an ELF file for machine %u, not an NVIDIA cubin (machine 190)", rd16(data + 18));
	*e = (struct elf){ .data = data, .size = size, .shoff = rd64(data + 0x28), .shentsize = rd16(data + 0x3a),
			   .shnum = rd16(data + 0x3c) };
	unsigned strndx = rd16(data + 0x3e);
	if (e->shentsize < 64 || e->shoff > size || (uint64_t)e->shnum * e->shentsize > size - e->shoff ||
	    strndx >= e->shnum)
		return ab_fail_text(err, len, "damaged cubin: section table outside the file");
	for (unsigned i = 0; i < e->shnum; i++)
		if (!section_ok(e, i))
			return ab_fail_text(err, len, "damaged cubin: section %u lies outside the file", i);
	const unsigned char *names;
	if (!section_bytes(e, strndx, &names, &e->shstr_size))
		return ab_fail_text(err, len, "damaged cubin: the section names (section %u) have no bytes in the file",
				    strndx);
	e->shstr = (const char *)names;
	if (e->shstr_size == 0 || e->shstr[e->shstr_size - 1] != '\0')
		return ab_fail_text(err, len, "damaged cubin: section names not terminated");
	return true;
}

/* The sm number of e_flags, by the ELF ABI version (EI_ABIVERSION). */
static int elf_sm(const unsigned char *data)
{
	uint32_t flags = rd32(data + 0x30);
	return data[8] >= 8 ? (int)(flags >> 8 & 0xff) : (int)(flags & 0xff);
}

/* Parameters from the KPARAM_INFO attributes of one .nv.info.NAME. */
static bool elf_params(const struct elf *e, unsigned i, struct cubin_file_info *out, char *err, size_t len)
{
	const unsigned char *p;
	size_t size;
	if (!section_bytes(e, i, &p, &size))
		return ab_fail_text(err, len, "damaged cubin: %s has no bytes in the file", section_name(e, i));
	const unsigned char *end = p + size;
	out->n_params = 0;
	while (end - p >= 4) {
		size_t n = p[0] == EIFMT_SVAL ? rd16(p + 2) : 0;
		if ((size_t)(end - p - 4) < n)
			return ab_fail_text(err, len, "damaged cubin: attribute past the end of %s", section_name(e, i));
		if (p[1] == EIATTR_KPARAM_INFO && n >= 12) {
			unsigned ordinal = rd16(p + 8);
			if (ordinal >= CUBIN_FILE_MAX_PARAMS)
				return ab_fail_text(err, len, "the kernel has more than %d parameters", CUBIN_FILE_MAX_PARAMS);
			out->param_size[ordinal] = (int)(rd32(p + 12) >> 18 & 0x3fff);
			if ((int)ordinal >= out->n_params)
				out->n_params = (int)ordinal + 1;
		}
		p += 4 + n;
	}
	return true;
}

static bool inspect_elf(const unsigned char *data, size_t size, const char *kernel, struct cubin_file_info *out,
			char *err, size_t len)
{
	static const char prefix[] = ".nv.info.";
	struct elf e;
	int found = -1;
	if (!elf_open(data, size, &e, err, len))
		return false;
	out->kind = CUBIN_FILE_CUBIN;
	out->sm = elf_sm(data);
	for (unsigned i = 0; i < e.shnum; i++) {
		const char *name = section_name(&e, i);
		if (strncmp(name, prefix, sizeof prefix - 1) != 0)
			continue;
		add_kernel(out, name + sizeof prefix - 1, strlen(name + sizeof prefix - 1));
		if (strcmp(name + sizeof prefix - 1, kernel) == 0)
			found = (int)i;
	}
	if (found < 0)
		return ab_fail_text(err, len, "no kernel '%s' in the cubin (kernels: %s)", kernel,
			       out->kernels[0] ? out->kernels : "none");
	return elf_params(&e, (unsigned)found, out, err, len);
}

/* ---- PTX ------------------------------------------------------------------ */

/* Bytes of one ".param" declaration: its type times an array count, in
 * checked arithmetic; -1 when the count is no number from 1 up or the
 * product is past what a kernel's parameters can hold. */
static long ptx_param_size(const char *decl, size_t n)
{
	static const struct { const char *type; int bytes; } types[] = {
		{ ".u64", 8 }, { ".s64", 8 }, { ".b64", 8 }, { ".f64", 8 }, { ".u32", 4 }, { ".s32", 4 },
		{ ".b32", 4 }, { ".f32", 4 }, { ".u16", 2 }, { ".s16", 2 }, { ".b16", 2 }, { ".f16", 2 },
		{ ".u8", 1 },  { ".s8", 1 },  { ".b8", 1 },
	};
	long bytes = 0;
	for (size_t t = 0; t < sizeof types / sizeof types[0] && !bytes; t++) {
		size_t tl = strlen(types[t].type);
		for (const char *p = decl; p + tl <= decl + n; p++)
			if (memcmp(p, types[t].type, tl) == 0 && (p + tl == decl + n || isspace((unsigned char)p[tl]))) {
				bytes = types[t].bytes;
				break;
			}
	}
	const char *br = memchr(decl, '[', n);
	if (!br)
		return bytes;
	unsigned long long count = 0;
	const char *q = br + 1;
	for (; q < decl + n && isdigit((unsigned char)*q); q++) {
		count = count * 10 + (unsigned long long)(*q - '0');
		if (count > CUBIN_FILE_MAX_PARAM_BYTES)
			return -1;
	}
	if (q == br + 1 || q >= decl + n || *q != ']' || count == 0 ||
	    (unsigned long long)bytes * count > CUBIN_FILE_MAX_PARAM_BYTES)
		return -1;
	return bytes * (long)count;
}

/* The first word in [p, stop), NULL when absent (a search bounded by the
 * declaration, not the rest of the file). */
static const char *find(const char *p, const char *stop, const char *word)
{
	size_t n = strlen(word);
	for (; p + n <= stop; p++)
		if (memcmp(p, word, n) == 0)
			return p;
	return NULL;
}

/* The parameter list between the '(' after ".entry NAME" and its ')'. */
static bool ptx_params(const char *open, struct cubin_file_info *out, char *err, size_t len)
{
	const char *close = strchr(open, ')');
	if (!close)
		return ab_fail_text(err, len, "damaged ptx: the parameter list has no ')'");
	out->n_params = 0;
	for (const char *p = open + 1; p < close;) {
		const char *comma = memchr(p, ',', (size_t)(close - p));
		const char *stop = comma ? comma : close;
		const char *decl = find(p, stop, ".param");
		if (decl) {
			if (out->n_params == CUBIN_FILE_MAX_PARAMS)
				return ab_fail_text(err, len, "the kernel has more than %d parameters", CUBIN_FILE_MAX_PARAMS);
			long size = ptx_param_size(decl, (size_t)(stop - decl));
			if (size < 0)
				return ab_fail_text(err, len,
						    "damaged ptx: parameter %d ('%.*s') is no array of 1 to %d bytes",
						    out->n_params, (int)(stop - decl > 60 ? 60 : stop - decl), decl,
						    CUBIN_FILE_MAX_PARAM_BYTES);
			out->param_size[out->n_params++] = (int)size;
		}
		p = stop + 1;
	}
	return true;
}

static bool inspect_ptx(const char *text, const char *kernel, struct cubin_file_info *out, char *err, size_t len)
{
	const char *target = strstr(text, ".target");
	const char *match = NULL;
	if (!target || !strstr(text, ".entry"))
		return ab_fail_text(err, len, "neither a cubin (ELF), a fatbin nor PTX text with a .target and an .entry");
	out->kind = CUBIN_FILE_PTX;
	const char *sm = strstr(target, "sm_");
	long arch = sm ? strtol(sm + 3, NULL, 10) : 0;
	out->sm = arch > 0 && arch < 10000 ? (int)arch : 0;
	for (const char *p = strstr(text, ".entry"); p; p = strstr(p + 6, ".entry")) {
		const char *name = p + 6;
		while (isspace((unsigned char)*name))
			name++;
		size_t n = strcspn(name, " \t\r\n(");
		add_kernel(out, name, n);
		if (n == strlen(kernel) && strncmp(name, kernel, n) == 0)
			match = name + n;
	}
	if (!match)
		return ab_fail_text(err, len, "no kernel '%s' in the ptx (entries: %s)", kernel, out->kernels);
	const char *open = match + strspn(match, " \t\r\n");
	if (*open != '(') {
		out->n_params = 0; /* an entry without parameters */
		return true;
	}
	return ptx_params(open, out, err, len);
}

bool cubin_file_inspect(const unsigned char *data, size_t size, const char *kernel, struct cubin_file_info *out,
			char *err, size_t len)
{
	memset(out, 0, sizeof *out);
	out->n_params = -1;
	if (size >= 4 && memcmp(data, "\x7f" "ELF", 4) == 0)
		return inspect_elf(data, size, kernel, out, err, len);
	if (size >= 4 && rd32(data) == FATBIN_MAGIC) {
		out->kind = CUBIN_FILE_FATBIN;
		return true;
	}
	if (memchr(data, '\0', size))
		return ab_fail_text(err, len, "neither a cubin (ELF), a fatbin nor PTX text");
	return inspect_ptx((const char *)data, kernel, out, err, len);
}

const char *cubin_file_kind_str(enum cubin_file_kind k)
{
	switch (k) {
	case CUBIN_FILE_CUBIN: return "cubin";
	case CUBIN_FILE_PTX: return "ptx";
	case CUBIN_FILE_FATBIN: return "fatbin";
	}
	return "unknown";
}
