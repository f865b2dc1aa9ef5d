// SPDX-License-Identifier: MIT
/*
 * rbtree_test - the pool's red-black tree against a sorted array: random
 * inserts and erases, order, red-black rules and the augmented maximum
 * checked after every step.
 */
#include "pool_test_util.h"

struct item {
	struct npu_rb rb;
	u64 key;
	u64 val;
	u64 max;		/* augmented: max val in subtree */
	int in;
};

#define N 2000

static struct item items[N];

static void item_augment(struct npu_rb *rb)
{
	struct item *it = npu_rb_entry(rb, struct item, rb);
	u64 m = it->val;

	if (rb->left && npu_rb_entry(rb->left, struct item, rb)->max > m)
		m = npu_rb_entry(rb->left, struct item, rb)->max;
	if (rb->right && npu_rb_entry(rb->right, struct item, rb)->max > m)
		m = npu_rb_entry(rb->right, struct item, rb)->max;
	it->max = m;
}

static void insert(struct npu_rb_root *root, struct item *it)
{
	struct npu_rb **link = &root->root, *parent = NULL;

	while (*link) {
		parent = *link;
		link = it->key < npu_rb_entry(parent, struct item, rb)->key ?
			&parent->left : &parent->right;
	}
	it->max = it->val;
	npu_rb_link(&it->rb, parent, link);
	npu_rb_insert_fixup(root, &it->rb);
	it->in = 1;
}

static int augment_ok(struct npu_rb *rb)
{
	struct item *it;
	u64 m;

	if (!rb)
		return 1;
	it = npu_rb_entry(rb, struct item, rb);
	m = it->val;
	if (rb->left && npu_rb_entry(rb->left, struct item, rb)->max > m)
		m = npu_rb_entry(rb->left, struct item, rb)->max;
	if (rb->right && npu_rb_entry(rb->right, struct item, rb)->max > m)
		m = npu_rb_entry(rb->right, struct item, rb)->max;
	return m == it->max && augment_ok(rb->left) && augment_ok(rb->right);
}

static int order_ok(struct npu_rb_root *root, int count)
{
	struct npu_rb *rb;
	u64 prev = 0;
	int n = 0;

	for (rb = npu_rb_first(root); rb; rb = npu_rb_next(rb)) {
		u64 k = npu_rb_entry(rb, struct item, rb)->key;

		if (n && k < prev)
			return 0;
		prev = k;
		n++;
	}
	if (n != count)
		return 0;
	/* and backwards */
	for (rb = npu_rb_last(root); rb; rb = npu_rb_prev(rb))
		n--;
	return n == 0;
}

int main(void)
{
	struct npu_rb_root root = { .root = NULL, .augment = item_augment };
	u64 rng = 42;
	int i, count = 0, rules = 1, order = 1, aug = 1, step;

	tap_plan(4);
	for (i = 0; i < N; i++) {
		items[i].key = rng_range(&rng, 0, 500);	/* duplicates too */
		items[i].val = rng_next(&rng);
	}
	for (step = 0; step < 20000; step++) {
		struct item *it = &items[rng_range(&rng, 0, N - 1)];

		if (it->in) {
			npu_rb_erase(&root, &it->rb);
			it->in = 0;
			count--;
		} else {
			insert(&root, it);
			count++;
		}
		if (step % 7 == 0 || step > 19900) {
			rules &= npu_rb_validate(&root) >= 0;
			order &= order_ok(&root, count);
			aug &= augment_ok(root.root);
		}
	}
	tap_ok(rules, "red-black rules hold after random inserts and erases");
	tap_ok(order, "in-order walk is sorted both ways and complete");
	tap_ok(aug, "augmented subtree maximum exact after every change");
	for (i = 0; i < N; i++)
		if (items[i].in) {
			npu_rb_erase(&root, &items[i].rb);
			count--;
		}
	tap_ok(!root.root && count == 0, "tree empty after erasing all");
	return tap_done();
}
