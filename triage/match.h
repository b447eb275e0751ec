/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Routing from a report's content: which MAINTAINERS sections a report
 * read by tri_read() points at (issue 15).
 *
 * Clues come from the report, each with a weight: the fault's own source
 * path (WARNING at, kernel BUG at, KASAN) weighs most, then the RIP/pc
 * symbol and module, then the first frames of the call trace (decaying
 * with depth, frames printed with '?' and frames that appear in every
 * trace -- __warn, report_bug, do_syscall_64, process_one_work, ... --
 * weigh little or nothing), then the other paths the text names, the
 * drivers that printed lines and the firmware files.  "Modules linked in:"
 * is not a clue: it lists every module loaded.
 *
 * A clue is matched against the sections' patterns:
 *   - a path against F: (and X:) as get_maintainer.pl reads them: a
 *     pattern ending in '/' matches everything below it, '*' and '?' are
 *     globs, any other pattern matches a path with as many '/' that it is
 *     a prefix of; the deepest matching patterns win, shallower ones
 *     ("THE REST"'s "*", "drivers/") get a fraction; and against N:;
 *   - a module, driver or symbol by its name: "iwlwifi" matches an F:
 *     pattern with a component "iwlwifi/", "thinkpad_acpi" one whose file
 *     is "thinkpad_acpi.c", "hid_logitech_dj" the glob "hid-logitech-*",
 *     "amd_pmc" the components "amd/pmc/", a symbol "tcp_retransmit_skb"
 *     by its prefix the glob "tcp*.c" ('_' and '-' variants are tried);
 *     a component that ends the pattern counts more than one inside it;
 *     a symbol of a module whose folder a pattern shows ("amdgpu/" in
 *     drivers/gpu/drm/amd/) is looked for by its '_' prefixes, short
 *     ones too, as a folder under the same parent: dc_validate_with_context
 *     [amdgpu] is drivers/gpu/drm/amd/display/dc/, with the module's weight;
 *     a module or device driver that matched nothing is tried, at low
 *     weight, as a subfolder of a vendor's folder whose F: is "*\/" right
 *     under it ("e1000e", "igc" under drivers/net/ethernet/intel), when
 *     the report names that vendor (a PCI/USB vendor id, the hardware
 *     name);
 *   - names written in prose (the report's first line, its title, weighs
 *     most; the rest of its first TRI_MATCH_MAX_PROSE bytes little; log,
 *     trace and quoted lines are not prose): each word of 3 to 40 letters,
 *     digits, '_' and '-' (not a common English word, nor a vendor's name)
 *     against the subsystem a title names ("usb": USB SUBSYSTEM, "btrfs":
 *     BTRFS FILE SYSTEM), a lower-case name alone in a title's parentheses
 *     ("iwlwifi"), a word with a digit in at most two titles ("k10temp"),
 *     a vendor's name and the title's next word ("AMD PMC") as those two
 *     folders in a row anywhere (drivers/platform/x86/amd/pmc/),
 *     and F: components that end a pattern in at most four sections,
 *     spelt exactly so in either spelling of '_' and '-' ("mwifiex" is
 *     drivers/net/wireless/marvell/mwifiex/, "asus-wmi" asus-wmi.c),
 *     failing those the end of a file's name ("cadence-quadspi" of
 *     spi-cadence-quadspi.c), failing that the name without its last part
 *     ("tpm_tis": tpm/); headers, arch/ and device trees count less;
 *     failing all those, F: file globs the word fits as a file or folder
 *     ("asus-wmi": asus*.c) in at most four sections;
 *     the subsystem tags that start a title ("usb: dwc3: gadget: ...",
 *     as patches' subjects have them, not a crash's kind: "BUG: KASAN:")
 *     and the bracketed words before them weigh more than the title's
 *     other words, syzbot's ("[syzbot] [input?] ...", the subsystems it
 *     mailed) most; so do the words of a Bugzilla mail's "Component:"
 *     line in its first 40 lines ("Component: USB"); a tag that is a
 *     path ("platform/x86/intel/pmc:") is that folder, as written or
 *     under drivers/;
 *   - the tree a kernel test robot report names on a "tree:" line (its
 *     URL, scheme and ".git" aside) against T:: it mails that tree's
 *     people, so its sections weigh most (shared among them), the
 *     sections of the same kernel.org owner's other trees less;
 *   - K: regexes against the text (the first TRI_MATCH_MAX_K_TEXT bytes).
 *
 * A locator (struct tri_locator, the caller's: triage runs no processes;
 * tracker/locate.h asks a watched git tree with `git grep`) maps names to
 * files first: the RIP/pc symbol and module, the first non-generic frames'
 * symbols and modules, the drivers that printed lines and the title's
 * words with a digit, '_' or '-' (as modules and functions, at most 8
 * each; plain words are the names of objects all over a tree) (at most
 * TRI_LOCATE_MAX names of each kind, each made only of [A-Za-z0-9_], '-'
 * too for modules, at most TRI_LOCATE_NAME_MAX bytes: no other name is
 * asked).  A located symbol's file (where it is defined) or module's
 * folder (or single file) is matched as a path at the weight of the clue
 * it came from, its reason saying so ("frame x [m]: defined in
 * drivers/foo/core.c (git grep): matched F: drivers/foo/"); names the
 * locator does not know are matched by name as above.  Without a locator
 * (tri_match()) no git tree is used.
 *
 * The result is a ranked list of sections with a score and, for each, the
 * strongest reason: which report line matched which pattern.  A section
 * without L: ranks at 0.3 of its score: it is no place to write to, and
 * the broader section of its files, with a list, goes first.
 */
#ifndef BB_TRIAGE_MATCH_H
#define BB_TRIAGE_MATCH_H

#include <stddef.h>

#include "mail/maintainers.h"
#include "triage/guilty.h"
#include "triage/reader.h"

#define TRI_MATCH_MAX_CLUES 96          /* clues taken from one report */
#define TRI_MATCH_MAX_K_TEXT (256u << 10) /* bytes of text K: regexes look at */
#define TRI_MATCH_MAX_PROSE (16u << 10)   /* bytes of text read for names in prose */
#define TRI_MATCH_MAX_PROSE_WORDS 400     /* distinct words of prose looked up */

/* The sections' patterns, prepared once (glob components indexed, N: and
 * K: compiled).  Borrows mf, which must outlive it.  Never NULL (GLib
 * aborts when out of memory); regexes that do not compile are skipped. */
struct tri_matcher;
struct tri_matcher *tri_matcher_new(const struct mnt_file *mf);
void tri_matcher_free(struct tri_matcher *m);
/* The MAINTAINERS file the matcher was made of. */
const struct mnt_file *tri_matcher_file(const struct tri_matcher *m);

#define TRI_MATCH_MAX_EVIDENCE 4         /* clues kept as a section's evidence */

struct tri_match {
	const struct mnt_section *section;  /* borrowed from the mnt_file */
	double score;
	char *reason;   /* "line 9: RIP iwl_mvm_rx_tx_cmd [iwlmvm]: module iwlmvm matched
			 * F: drivers/net/wireless/intel/iwlwifi/" */
	/* The clues that counted for the section, in words as reason, the
	 * strongest first (evidence[0] is reason's text), each with what it
	 * added to score (of the same words said twice, the stronger); at
	 * most TRI_MATCH_MAX_EVIDENCE, evidence NULL-terminated. */
	char **evidence;
	double *evidence_score;
	size_t nevidence;
	/* The lists to write to, as scripts/get_maintainer.pl names them for
	 * the file whose clue gave reason (a path the report prints, a title's
	 * tag that is a path, or where the tree or index located a symbol or
	 * module): the section's own L:
	 * first, then those of every other section whose F: (or N:) cover that
	 * file, deepest first (triage/writeto.h); the section's own L: alone
	 * when its reason is no file (a name in prose, a tree, K:).
	 * NULL-terminated, never NULL. */
	char **write_to;
};

struct tri_ranking {
	struct tri_match *matches;  /* best first, at most max, score > 0 */
	size_t n;
};

/* Ranks the sections for report r, read from text (len bytes; used for
 * K:, may be NULL).  At most max matches (0: 10).  Free with
 * tri_ranking_free(). */
struct tri_ranking *tri_match(const struct tri_matcher *m, const struct tri_report *r,
			      const char *text, size_t len, size_t max);
void tri_ranking_free(struct tri_ranking *rk);

#define TRI_LOCATE_MAX 16        /* symbols, and modules, asked per report */
#define TRI_LOCATE_NAME_MAX 64   /* bytes of a name asked */

/* Where names are in a source tree; the caller's (a git tree's grep).
 * Each callback gets n names (distinct, valid as above) and the
 * architecture the report ran on ("x86", "arm64", ...; NULL unknown), and
 * sets paths[i] (all NULL on entry) to a malloc'd path for the names it
 * found: symbols: the file that defines it ("drivers/foo/core.c");
 * modules: the folder it is built in, with a trailing '/'
 * ("drivers/foo/wm/"), or its single source file.  The matcher frees them
 * with free().  A callback that fails leaves the rest NULL (the names are
 * then matched by name); it never stops the ranking.  Either callback may
 * be NULL. */
struct tri_locator {
	void (*symbols)(void *ctx, const char *const *names, size_t n, const char *arch,
			char **paths);
	void (*modules)(void *ctx, const char *const *names, size_t n, const char *arch,
			char **paths);
	const char *how;         /* in reasons: "git grep" */
	void *ctx;
};

/* tri_match(), with names located by loc first (NULL: as tri_match()). */
struct tri_ranking *tri_match_located(const struct tri_matcher *m, const struct tri_report *r,
				      const char *text, size_t len, size_t max,
				      const struct tri_locator *loc);
/* Whether name may be asked of a locator: [A-Za-z0-9_] (and '-' if
 * module), 1 to TRI_LOCATE_NAME_MAX bytes. */
int tri_locate_name_ok(const char *name, int module);

/* Shared code, the generic frames and the guilty frame, which weigh a
 * trace's clues here: tri_path_is_shared(), tri_symbol_is_shared(),
 * tri_symbol_is_generic() in triage/guilty.h (included). */

/* Whether path matches the F:/X: pattern as get_maintainer.pl reads it
 * (see above).  Exposed for the tests. */
int tri_pattern_matches(const char *pattern, const char *path);

#endif
