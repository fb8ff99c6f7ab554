// prefetch.h — for helpers that only prefetch. GCC (12, -O2) judges such a function pure, and
// removes a call to it whose (void) result is unused: out of line, its prefetches are never issued
// (the LPN expander's and the label sender's were not). Declare them PSI_PREFETCHER, which inlines
// them before that removal.
#pragma once

#define PSI_PREFETCHER __attribute__((always_inline)) inline
