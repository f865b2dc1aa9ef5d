// SPDX-License-Identifier: MIT
/*
 * pass_layout.c - layout assignment NCHW -> NC1HWC0 (placeholder until the
 * full pass lands: changes nothing).
 */
#include "passes.h"

int pass_layout_nc1hwc0(struct ir_graph *g, struct pass_stats *st)
{
	(void)g;
	(void)st;
	return 0;
}
