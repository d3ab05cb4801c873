#ifndef STROBE_FUZZER_DRIVER_H
#define STROBE_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer's driver with `callback` as the target. Returns -1 when the binary was built
/// without `-sanitize=fuzzer` (libFuzzer is then absent), otherwise libFuzzer's exit status.
int strobe_fuzzer_run(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
