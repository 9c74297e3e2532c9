/*
 * wizard_int.h - the steps' entry points, shared by wizard_steps.c (the
 * ladder table) and the files that implement each step. Not a public API.
 * A new step declares its ops here; a drawer (views/) is declared in
 * wizard.h instead, where views/ can see it.
 */
#ifndef FABTOP_WIZARD_INT_H
#define FABTOP_WIZARD_INT_H

#include "fabtop/wizard.h"

bool wiz_l2_gate(const struct wizard *w, const struct fab_model *m, char *why, size_t len);
/* Layer 2 (wizard_l2.c): the path MTU probes run in a thread of their own. */
int wiz_l2_start(struct wizard *w, struct wiz_step *s, const struct fab_model *m);
int wiz_l2_poll(struct wizard *w, struct wiz_step *s, int timeout_ms);
void wiz_l2_cancel(struct wizard *w, struct wiz_step *s);
void wiz_l2_fini(struct wiz_step *s);

bool wiz_l3_gate(const struct wizard *w, const struct fab_model *m, char *why, size_t len);
int wiz_l3_start(struct wizard *w, struct wiz_step *s, const struct fab_model *m);
int wiz_l3_poll(struct wizard *w, struct wiz_step *s, int timeout_ms);
void wiz_l3_cancel(struct wizard *w, struct wiz_step *s);
void wiz_l3_fini(struct wiz_step *s);
int wiz_l3_wait_fd(const struct wiz_step *s);

/* The A/B (wizard_ab.c): runs in the background, struct ab in s->priv. */
bool wiz_ab_gate(const struct wizard *w, const struct fab_model *m, char *why, size_t len);
int wiz_ab_start(struct wizard *w, struct wiz_step *s, const struct fab_model *m);
int wiz_ab_poll(struct wizard *w, struct wiz_step *s, int timeout_ms);
void wiz_ab_cancel(struct wizard *w, struct wiz_step *s);
void wiz_ab_fini(struct wiz_step *s);
/* Its output hooks (wizard.h); its drawer is wizard_ab_body(), views/. */
void wiz_ab_print(struct fab_out *o, const struct wiz_step *s, bool verbose);
int wiz_ab_exit(const struct wiz_step *s, const char **why);
int wiz_ab_wait_fd(const struct wiz_step *s);

/* `fabtop wizard`'s command line (wizard_batch.c), parsed apart from what
 * it runs: it prints --help and usage errors and opens nothing. Returns -1
 * to go on, or main's exit status (0 after --help, 2 after an error). What
 * it accepts is within its messages' ranges: pid 1..4194304, probe timeout
 * (0, 60] s, GID index 0..255, hang and run timeout (0, 86400] s, at most
 * WIZ_MAX_PEERS peers. Strings point into argv; cmd: the words after "--".
 * getopt's state is reset on each call. */
struct wiz_args {
	const char *root;
	bool batch, json, verbose;
	const char *steps;
	struct wizard_opts wo;
};
int wizard_parse_args(int argc, char **argv, struct wiz_args *a);

#endif
