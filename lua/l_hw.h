/*
** l_hw.h: the spec types of GPUs and systems, for other bindings that
** nest them (a training config holds a system, ...).
*/
#ifndef L_HW_H
#define L_HW_H

#include "lpod.h"

extern const lpod_type lpod_gpu_type;
extern const lpod_type lpod_system_type;

#endif
