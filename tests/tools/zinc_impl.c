/* Prints which Zinc implementation this process chose (as the daemon logs
 * it), or with --available the ZINC_IMPL values this CPU can run. */
#include <stdio.h>
#include <string.h>

#include <zinc/impl.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--available"))
		printf("%s\n", zinc_impl_available());
	else
		printf("%s\n", zinc_impl_describe());
	return zinc_impl_selftest_failures() ? 2 : 0;
}
