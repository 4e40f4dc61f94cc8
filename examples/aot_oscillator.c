/* Calls the ahead-of-time compiled gradient of examples/oscillator.py without Python.
 *
 *   adlite compile examples/oscillator.py:oscillator --grad -o build
 *   cc -Ibuild examples/aot_oscillator.c -Lbuild -loscillator_grad -Wl,-rpath,build -o grad
 *   ./grad 1.3 0.2
 */
#include <stdio.h>
#include <stdlib.h>

#include "oscillator_grad.h"

int main(int argc, char **argv) {
    double k = argc > 1 ? atof(argv[1]) : 1.3;
    double c = argc > 2 ? atof(argv[2]) : 0.2;
    double dk, dc;
    int32_t status = adlite_oscillator_grad(k, c, &dk, &dc);
    if (status != 0) {
        fprintf(stderr, "oscillator_grad failed with status %d\n", (int)status);
        return 1;
    }
    printf("d/dk = %.17g\nd/dc = %.17g\n", dk, dc);
    return 0;
}
