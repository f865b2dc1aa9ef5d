/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_rbtree.h - an intrusive red-black tree for the portable core.
 *
 * The kernel has <linux/rbtree.h>, userspace has nothing comparable, and the
 * portable core may include neither, so the pool carries its own. The tree
 * is intrusive (the node is embedded in its owner, found back with
 * npu_rb_entry) and optionally augmented: a callback recomputes a node's
 * summary from its children, which lets the pool keep "largest hole in this
 * subtree" for O(log n) lowest-address fit.
 *
 * Insertion is done by the caller (walk down comparing keys, then
 * npu_rb_link() and npu_rb_insert_fixup()), as with the kernel's rbtree,
 * so that no comparison callback is needed.
 */
#ifndef NPU_RBTREE_H
#define NPU_RBTREE_H

#include "../npu_os.h"

struct npu_rb {
	struct npu_rb *parent;
	struct npu_rb *left;
	struct npu_rb *right;
	bool red;
};

/* Recompute a node's augmented summary from its own value and children. */
typedef void (*npu_rb_augment_fn)(struct npu_rb *node);

struct npu_rb_root {
	struct npu_rb *root;
	npu_rb_augment_fn augment;	/* NULL: plain tree */
};

#define npu_rb_entry(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

/* Attach @node as the child *@link of @parent (NULL parent: the root). */
static inline void npu_rb_link(struct npu_rb *node, struct npu_rb *parent,
			       struct npu_rb **link)
{
	node->parent = parent;
	node->left = NULL;
	node->right = NULL;
	node->red = true;
	*link = node;
}

void npu_rb_insert_fixup(struct npu_rb_root *root, struct npu_rb *node);
void npu_rb_erase(struct npu_rb_root *root, struct npu_rb *node);

struct npu_rb *npu_rb_first(const struct npu_rb_root *root);
struct npu_rb *npu_rb_last(const struct npu_rb_root *root);
struct npu_rb *npu_rb_next(const struct npu_rb *node);
struct npu_rb *npu_rb_prev(const struct npu_rb *node);

/*
 * Check the red-black properties and parent links; returns the black height,
 * or -1 when broken. For tests and the pool's self-check.
 */
int npu_rb_validate(const struct npu_rb_root *root);

#endif /* NPU_RBTREE_H */
