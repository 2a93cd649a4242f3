// SPDX-License-Identifier: MIT
/* A QEMU TCG plugin (make bench-cross): counts the guest instructions a
 * program executes and prints "insns N" at exit. Debian's qemu-user takes
 * -plugin but ships no qemu-plugin.h, so the few entries used here are
 * declared by hand, as QEMU 7.2's plugin API (version 1) defines them. */
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void *),
				    void *userdata);
void qemu_plugin_outs(const char *string);

static uint64_t insns;

/* Each translated block adds its length to the count every time it runs. */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns,
						 qemu_plugin_tb_n_insns(tb));
}

static void on_exit(qemu_plugin_id_t id, void *p)
{
	char line[64];

	(void)id;
	(void)p;
	snprintf(line, sizeof(line), "insns %llu\n", (unsigned long long)insns);
	qemu_plugin_outs(line);
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info, int argc, char **argv)
{
	(void)info;
	(void)argc;
	(void)argv;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit, NULL);
	return 0;
}
