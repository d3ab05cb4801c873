#include "CFuzzerDriver.h"
#include <stdlib.h>

// Weak, so that a normal build (no libFuzzer) links; Scripts/fuzz.sh builds with
// `-sanitize=fuzzer` and `-u LLVMFuzzerRunDriver`, which brings the driver in.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv,
                               int (*callback)(const uint8_t *data, size_t size)) __attribute__((weak));

int strobe_fuzzer_run(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size)) {
    if (!LLVMFuzzerRunDriver) return -1;
    return LLVMFuzzerRunDriver(argc, argv, callback);
}

// A debug build links executables with `--defsym main=<module>_main`, so libFuzzer's own main
// is pulled in beside ours (and never runs); it needs this symbol to link.
__attribute__((weak)) int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    (void)data;
    (void)size;
    abort();
}
