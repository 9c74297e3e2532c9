/*
 * vocab.h - one vocabulary for every medium: the words and units that the
 * text reports, the JSON, the metrics and the panes print for a fact. A
 * link layer, a port state, a unit or a finding's subject is named here
 * and nowhere else, so `report links --json` and the Links pane cannot
 * call the same port two different things.
 *
 * Conventions:
 *   - a function returning const char * returns a static word; NULL means
 *     "unknown": the print layer writes JSON null and text "N/A";
 *   - rates of ports are bits per second, printed with their unit
 *     ("400 Gb/s"); data is bytes; the kernel's 4-octet words are named
 *     as such wherever a raw counter is shown.
 */
#ifndef FABTOP_VOCAB_H
#define FABTOP_VOCAB_H

#include <stddef.h>
#include "fabtop/model.h"

/* The word for an unknown value in text and panes: s, or "N/A" when s is
 * NULL or empty. JSON writes null instead (print.h). */
const char *fab_na(const char *s);

/* The kernel's word in ports/N/link_layer -> the enum; "" -> unknown. */
enum fab_link_layer ll_parse(const char *word);
/* "InfiniBand", "Ethernet", "other"; NULL when unknown. JSON and details. */
const char *ll_name(enum fab_link_layer ll);
/* "IB", "RoCE", "other", "N/A": table columns, text and panes alike. */
const char *ll_short(enum fab_link_layer ll);

/* "yes", "no", "unknown". */
const char *tri_name(enum fab_tri t);
/* The same in the reader's language, for text (JSON says tri_name). */
const char *tri_word(enum fab_tri t);

/* A port's state and physical state as the kernel names them ("ACTIVE",
 * "LinkUp"); the number when only that was read; NULL when unknown. buf
 * holds the number's text. */
const char *port_state_word(const struct fab_port *p, char *buf, size_t len);
const char *port_phys_word(const struct fab_port *p, char *buf, size_t len);
/* The kernel's word for a state number (ib_port_state: 0 NOP, 1 DOWN,
 * 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER) and for a physical state
 * number (ib_port_phys_state: 1 Sleep ... 7 Phy Test); NULL for a number
 * the kernel does not define. PORT_STATE_MAX and PORT_PHYS_MAX are the
 * highest defined numbers, for those listing every state (the metrics). */
#define PORT_STATE_MAX 5
#define PORT_PHYS_MAX  7
const char *port_state_name(long long num);
const char *port_phys_name(long long num);

/* A finding's subject for a port, "mlx5_0/1", or a device, "mlx5_0"
 * (port <= 0). Every rule and every view names ports this way. */
const char *fab_subject(const char *dev, int port, char *buf, size_t len);

/* Priorities set in an 8-bit mask: "3", "0,3", "none"; NULL when unknown. */
const char *fab_prio_list(fab_int mask, char *buf, size_t len);

/* A rate in bits per second with its unit, 3 significant digits at most
 * from 1 up: "400 Gb/s", "12.5 Gb/s", "980 Mb/s", "0 b/s". */
const char *fab_fmt_bps(double bits_per_s, char *buf, size_t len);
/* A port's rate as the tables show it, "400 Gb/s 4X NDR" (width and speed
 * when known); the kernel's own string when the rate is not a number;
 * "N/A" when unknown. Port rates stay in Gb/s, as the kernel gives them,
 * so a column of them has one unit. */
const char *fab_fmt_port_rate(const struct fab_port *p, char *buf, size_t len);
/* A port's line rate (port_line_gbps()) in the same unit, "400 Gb/s";
 * "N/A" when unknown (gbps <= 0). */
const char *fab_fmt_line_rate(double gbps, char *buf, size_t len);

/* Severity words: "info", "warning", "error" (JSON, metrics: never
 * translated); sev_word() is the same word for people (the text reports),
 * sev_label() in capitals for the panes, both in the interface's language
 * (i18n.h). */
const char *sev_name(enum fab_severity s);
const char *sev_word(enum fab_severity s);
const char *sev_label(enum fab_severity s);

/* A port's traffic state (sampler_port_state(), enum port_traffic) as one
 * word list: "GONE,STOPPED", "RETRIES,CONGESTED", "IMPLAUSIBLE"; without a bad bit,
 * "idle" (never moved traffic), "ok", or "-" (no rates yet). */
const char *traffic_words(unsigned bits, char *buf, size_t len);

/* The flags of a counter's last step (enum ctr_flag) as one word list:
 * "RESET", "WRAP", "SAT", "GONE", "NEW", "UNREADABLE", "IMPLAUSIBLE"; "" when none.
 * each() (may be NULL) is also called with every word, for JSON arrays. */
const char *ctr_flag_words(unsigned flags, char *buf, size_t len,
			   void (*each)(void *ctx, const char *word), void *ctx);

/* A report's verdict (model_verdict()): "ok", "findings", "unknown". */
const char *fab_verdict_name(enum fab_verdict v);

#endif
