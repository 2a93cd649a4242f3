// SPDX-License-Identifier: MIT
/* The NSS-free passwd(5) lookup behind --user (daemon/passwd.c). */
#include <errno.h>

#include "test.h"

#include "../../daemon/passwd.c"

#include <unistd.h>

static const char sample[] = "# comment:x:7:7\n"
			     "root:x:0:0:root:/root:/bin/bash\n"
			     "+nis:x:55:55::/:\n"
			     "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
			     "broken:x:12\n"
			     "neg:x:-1:5::/:\n"
			     "huge:x:4294967295:5::/:\n"
			     "long:x:99999999999:5::/:\n"
			     "\n"
			     "1000:x:2000:2001::/:\n"
			     "zt:x:1234:4321:zinctun test:/:/bin/false\n"
			     "nogecos:x:77:78"; /* last line without newline or later fields */

static int lookup(const char *name, uid_t *u, gid_t *g)
{
	*u = 9999;
	*g = 9999;
	return zt_passwd_parse(sample, sizeof(sample) - 1, name, u, g);
}

int main(void)
{
	uid_t u;
	gid_t g;

	CHECK(lookup("root", &u, &g) == 0 && u == 0 && g == 0);
	CHECK(lookup("nobody", &u, &g) == 0 && u == 65534 && g == 65534);
	CHECK(lookup("zt", &u, &g) == 0 && u == 1234 && g == 4321);
	CHECK(lookup("nogecos", &u, &g) == 0 && u == 77 && g == 78);
	/* prefixes and extensions of a name are other names */
	CHECK(lookup("z", &u, &g) == -ENOENT);
	CHECK(lookup("zt2", &u, &g) == -ENOENT);
	CHECK(lookup("roo", &u, &g) == -ENOENT);
	/* comments, NIS entries and malformed ids are not users */
	CHECK(lookup("# comment", &u, &g) == -ENOENT);
	CHECK(lookup("+nis", &u, &g) == -ENOENT);
	CHECK(lookup("broken", &u, &g) == -ENOENT);
	CHECK(lookup("neg", &u, &g) == -ENOENT);
	CHECK(lookup("huge", &u, &g) == -ENOENT);
	CHECK(lookup("long", &u, &g) == -ENOENT);
	CHECK(lookup("", &u, &g) == -ENOENT);
	CHECK(lookup("x", &u, &g) == -ENOENT);
	/* a numeric name: a user of that name first, then that uid, then itself */
	CHECK(lookup("1000", &u, &g) == 0 && u == 2000 && g == 2001);
	CHECK(lookup("1234", &u, &g) == 0 && u == 1234 && g == 4321);
	CHECK(lookup("4242", &u, &g) == 0 && u == 4242 && g == 4242);
	CHECK(lookup("4294967295", &u, &g) == -ENOENT); /* (uid_t)-1 means "unchanged" */
	CHECK(lookup("-5", &u, &g) == -ENOENT);
	/* an empty file, and the real file for root */
	CHECK(zt_passwd_parse("", 0, "root", &u, &g) == -ENOENT);
	CHECK(zt_passwd_lookup(ZT_PASSWD_FILE, "root", &u, &g) == 0 && u == 0 && g == 0);
	CHECK(zt_passwd_lookup("/nonexistent/passwd", "root", &u, &g) == -ENOENT);
	CHECK(zt_passwd_lookup("/nonexistent/passwd", "321", &u, &g) == 0 && u == 321 && g == 321);
	return test_finish("passwd");
}
