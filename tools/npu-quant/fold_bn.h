/* SPDX-License-Identifier: MIT */
/*
 * fold_bn.h - BatchNormalization folded into the Conv before it, in a
 * ModelProto (fold_bn.c).
 */
#ifndef NPUQ_FOLD_BN_H
#define NPUQ_FOLD_BN_H

#include <stdbool.h>
#include <stdint.h>

#include "onnx/onnx.pb-c.h"

/*
 * npuq_fold_bn() - fold every foldable Conv -> BatchNormalization pair of
 * @m's graph; *@folded counts them. Return: 0, or -ENOMEM (the model may
 * then be half edited: give up on it).
 */
int npuq_fold_bn(Onnx__ModelProto *m, int *folded);

#endif /* NPUQ_FOLD_BN_H */
