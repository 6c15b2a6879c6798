// SPDX-License-Identifier: GPL-2.0
/* kmatrix: the backport matrix of a kernel series.  main() only dispatches. */
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
