/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report's HTML writer (report_html.c): index.html,
 * trees/<name>.html, regression/<id>.html and style.css, made from the
 * report model (report_model.h); report.c writes them into the folder.
 */
#ifndef BB_TRACKER_REPORT_HTML_H
#define BB_TRACKER_REPORT_HTML_H

#include <stddef.h>

#include "tracker/report_model.h"

/* The pages' style sheet, style.css. */
extern const char reg_report_css[];

/* regression/<id>.html, trees/<name>.html and index.html into p. */
void reg_report_regression_page(struct page *p, const struct page_ctx *pc,
				const struct reg_report_item *it);
void reg_report_tree_page(struct page *p, const struct page_ctx *pc, const char *branch);
void reg_report_index_page(struct page *p, const struct page_ctx *pc, const char **trees,
			   size_t ntrees);

/* The trees to show, mainline first (free() the array); NULL when out of
 * memory. */
const char **reg_report_tree_names(const struct page_ctx *pc, size_t *count);

#endif
