/*
 * procid.h - who owns a run: a process named so that "is it still alive?"
 * has a sure answer on the machine that started it.
 *
 * A pid alone is reused; the identity adds the kernel's boot id, the pid
 * namespace and the process's start time in clock ticks since boot (field
 * 22 of /proc/PID/stat), written "BOOT_ID/PIDNS/TICKS". A run row carries
 * the host name, the pid and this identity (docs/SCHEMA.md); any command
 * that opens the database asks procid_state about the rows still
 * 'running' and marks the dead ones 'interrupted'.
 */
#ifndef AB_PROCID_H
#define AB_PROCID_H

#include <stddef.h>
#include <stdint.h>

#define PROCID_MAX 128

enum procid_state {
	PROCID_ALIVE,   /* the very process still runs */
	PROCID_GONE,    /* it cannot run any more: it exited, or the machine rebooted */
	PROCID_UNKNOWN, /* another host or pid namespace, or no identity recorded */
};

/* This machine's host name (gethostname), as runs record it. */
void procid_host(char *buf, size_t len);

/* The identity of process pid ("" when /proc does not tell). */
void procid_of(int64_t pid, char *buf, size_t len);

/* The process a run row names as its owner: this one, unless a
 * supervisor that waits for it and outlives it (run/supervise.h) was set
 * as the owner. */
void procid_set_owner(int64_t pid);
int64_t procid_owner(void);

/* What became of the process recorded as (host, pid, identity). */
enum procid_state procid_state(const char *host, int64_t pid, const char *identity);

#endif
