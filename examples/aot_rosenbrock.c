/* Calls the ahead-of-time compiled Rosenbrock function (W1 of the benchmarks) and its
 * gradient over an array of 8 doubles, without Python.
 *
 *   adlite compile benchmarks/workloads.py:w1_rosenbrock --types 'f64[8]' -o build
 *   adlite compile benchmarks/workloads.py:w1_rosenbrock --grad --types 'f64[8]' -o build
 *   cc -Ibuild examples/aot_rosenbrock.c -Lbuild -lw1_rosenbrock -lw1_rosenbrock_grad \
 *      -Wl,-rpath,build -o rosenbrock
 *   ./rosenbrock 0.5 -1 2 0.25 1 1.5 -0.75 0
 */
#include <stdio.h>
#include <stdlib.h>

#include "w1_rosenbrock.h"
#include "w1_rosenbrock_grad.h"

#define N 8

int main(int argc, char **argv) {
    double x[N], gradient[N], value;
    for (int i = 0; i < N; i++)
        x[i] = i + 1 < argc ? atof(argv[i + 1]) : 0.1 * i;
    int32_t status = adlite_w1_rosenbrock(x, N, &value);
    if (status == 0)
        status = adlite_w1_rosenbrock_grad(x, N, gradient, N);
    if (status != 0) {
        fprintf(stderr, "w1_rosenbrock failed with status %d\n", (int)status);
        return 1;
    }
    printf("value %.17g\n", value);
    for (int i = 0; i < N; i++)
        printf("d/dx[%d] %.17g\n", i, gradient[i]);
    /* a length other than the compiled one is refused before anything runs */
    printf("status with a wrong length: %d\n", (int)adlite_w1_rosenbrock_grad(x, N - 1,
                                                                             gradient, N));
    return 0;
}
