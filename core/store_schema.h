/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The schema a new database is given at once (store.c's migrate()), where
 * an older one goes through the migrations one by one. */
#ifndef BB_STORE_SCHEMA_H
#define BB_STORE_SCHEMA_H

/* The version store_fresh_schema makes (0: none), and its statements, in
 * the order the migrations made their objects; NULL-terminated.  Written
 * by tests/unit/test-store with BUGBRIDGE_PRINT_FRESH_SCHEMA=1 from a
 * database the migrations made, and checked by it against one. */
extern const int store_fresh_version;
extern const char *const store_fresh_schema[];

#endif
