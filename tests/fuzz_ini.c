/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_ini.c - libFuzzer target for the scenario reader and the --set
 * parser: any bytes must give 0 or a clean error with a message, never a
 * crash, leak or undefined behaviour (built with ASan and UBSan).
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sim_params *p;
	char err[1024];
	if (sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)))
		abort();
	/* Includes would read files: name the buffer inside a folder that does
	 * not exist, so that every include fails cleanly. */
	err[0] = 0;
	int rc = sim_params_load_buffer(p, "/nonexistent/fuzz.ini", (const char *)data, size, err,
					sizeof(err));
	assert(rc == 0 || (rc < 0 && err[0]));
	/* The same bytes as one --set assignment (up to the first NUL). */
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = 0;
	err[0] = 0;
	rc = sim_params_set(p, s, err, sizeof(err));
	assert(rc == 0 || (rc < 0 && err[0]));
	free(s);
	sim_params_destroy(p);
	return 0;
}
