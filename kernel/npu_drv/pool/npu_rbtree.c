// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npu_rbtree.c - intrusive, optionally augmented red-black tree.
 *
 * Classic algorithm (Cormen et al., chapter 13) with NULL leaves. The
 * augmented summary is kept exact this way: after a structural change the
 * path from the lowest changed node to the root is recomputed before the
 * colour fix-up, and every rotation recomputes the two nodes it turns (a
 * rotation does not change the set of nodes under the pair, so ancestors
 * stay correct).
 */
#include "npu_rbtree.h"

static void augment(struct npu_rb_root *root, struct npu_rb *n)
{
	if (root->augment && n)
		root->augment(n);
}

static void augment_path(struct npu_rb_root *root, struct npu_rb *n)
{
	if (!root->augment)
		return;
	for (; n; n = n->parent)
		root->augment(n);
}

static void replace_child(struct npu_rb_root *root, struct npu_rb *parent,
			  struct npu_rb *old, struct npu_rb *new)
{
	if (!parent)
		root->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

static void rotate_left(struct npu_rb_root *root, struct npu_rb *x)
{
	struct npu_rb *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	y->parent = x->parent;
	replace_child(root, x->parent, x, y);
	y->left = x;
	x->parent = y;
	augment(root, x);
	augment(root, y);
}

static void rotate_right(struct npu_rb_root *root, struct npu_rb *x)
{
	struct npu_rb *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	y->parent = x->parent;
	replace_child(root, x->parent, x, y);
	y->right = x;
	x->parent = y;
	augment(root, x);
	augment(root, y);
}

/**
 * npu_rb_insert_fixup - rebalance after npu_rb_link() attached @z
 * @root: the tree
 * @z: the node just linked
 */
void npu_rb_insert_fixup(struct npu_rb_root *root, struct npu_rb *z)
{
	augment_path(root, z);
	while (z->parent && z->parent->red) {
		struct npu_rb *p = z->parent, *g = p->parent, *u;

		if (p == g->left) {
			u = g->right;
			if (u && u->red) {
				p->red = false;
				u->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->right) {
				z = p;
				rotate_left(root, z);
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rotate_right(root, g);
		} else {
			u = g->left;
			if (u && u->red) {
				p->red = false;
				u->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->left) {
				z = p;
				rotate_right(root, z);
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rotate_left(root, g);
		}
	}
	root->root->red = false;
}

static void erase_fixup(struct npu_rb_root *root, struct npu_rb *x,
			struct npu_rb *xp)
{
	while (x != root->root && (!x || !x->red)) {
		struct npu_rb *w;

		if (x == xp->left) {
			w = xp->right;
			if (w->red) {
				w->red = false;
				xp->red = true;
				rotate_left(root, xp);
				w = xp->right;
			}
			if ((!w->left || !w->left->red) &&
			    (!w->right || !w->right->red)) {
				w->red = true;
				x = xp;
				xp = x->parent;
			} else {
				if (!w->right || !w->right->red) {
					w->left->red = false;
					w->red = true;
					rotate_right(root, w);
					w = xp->right;
				}
				w->red = xp->red;
				xp->red = false;
				if (w->right)
					w->right->red = false;
				rotate_left(root, xp);
				x = root->root;
				xp = NULL;
			}
		} else {
			w = xp->left;
			if (w->red) {
				w->red = false;
				xp->red = true;
				rotate_right(root, xp);
				w = xp->left;
			}
			if ((!w->left || !w->left->red) &&
			    (!w->right || !w->right->red)) {
				w->red = true;
				x = xp;
				xp = x->parent;
			} else {
				if (!w->left || !w->left->red) {
					w->right->red = false;
					w->red = true;
					rotate_left(root, w);
					w = xp->left;
				}
				w->red = xp->red;
				xp->red = false;
				if (w->left)
					w->left->red = false;
				rotate_right(root, xp);
				x = root->root;
				xp = NULL;
			}
		}
	}
	if (x)
		x->red = false;
}

/**
 * npu_rb_erase - unlink @z from @root and rebalance
 * @root: the tree
 * @z: a node currently in @root
 */
void npu_rb_erase(struct npu_rb_root *root, struct npu_rb *z)
{
	struct npu_rb *x, *xp, *lowest;
	bool removed_red;

	if (!z->left || !z->right) {
		x = z->left ? z->left : z->right;
		xp = z->parent;
		removed_red = z->red;
		if (x)
			x->parent = xp;
		replace_child(root, xp, z, x);
		lowest = xp;
	} else {
		struct npu_rb *y = z->right;

		while (y->left)
			y = y->left;
		removed_red = y->red;
		x = y->right;
		if (y->parent == z) {
			xp = y;
		} else {
			xp = y->parent;
			xp->left = x;
			if (x)
				x->parent = xp;
			y->right = z->right;
			z->right->parent = y;
		}
		y->left = z->left;
		z->left->parent = y;
		y->parent = z->parent;
		replace_child(root, z->parent, z, y);
		y->red = z->red;
		lowest = xp;
	}
	augment_path(root, lowest);
	if (!removed_red && root->root)
		erase_fixup(root, x, xp);
	z->parent = NULL;
	z->left = NULL;
	z->right = NULL;
}

struct npu_rb *npu_rb_first(const struct npu_rb_root *root)
{
	struct npu_rb *n = root->root;

	while (n && n->left)
		n = n->left;
	return n;
}

struct npu_rb *npu_rb_last(const struct npu_rb_root *root)
{
	struct npu_rb *n = root->root;

	while (n && n->right)
		n = n->right;
	return n;
}

struct npu_rb *npu_rb_next(const struct npu_rb *n)
{
	if (n->right) {
		n = n->right;
		while (n->left)
			n = n->left;
		return (struct npu_rb *)n;
	}
	while (n->parent && n == n->parent->right)
		n = n->parent;
	return n->parent;
}

struct npu_rb *npu_rb_prev(const struct npu_rb *n)
{
	if (n->left) {
		n = n->left;
		while (n->right)
			n = n->right;
		return (struct npu_rb *)n;
	}
	while (n->parent && n == n->parent->left)
		n = n->parent;
	return n->parent;
}

static int validate(const struct npu_rb *n, const struct npu_rb *parent)
{
	int l, r;

	if (!n)
		return 1;
	if (n->parent != parent)
		return -1;
	if (n->red && ((n->left && n->left->red) ||
		       (n->right && n->right->red)))
		return -1;
	l = validate(n->left, n);
	r = validate(n->right, n);
	if (l < 0 || r < 0 || l != r)
		return -1;
	return l + (n->red ? 0 : 1);
}

int npu_rb_validate(const struct npu_rb_root *root)
{
	if (root->root && root->root->red)
		return -1;
	return validate(root->root, NULL);
}
