/* learn_dump.c - prints the learn content (src/learn_content.c) as JSON, so
 * tests/learn/t_content.sh can check it against the scenarios' reports.
 * Built by the test itself with the content file alone: gettext is the
 * identity here (the content is checked in English, as the reports are). */
#include <stdio.h>
#include "fabtop/i18n.h"
#include "fabtop/learn.h"

const char *fab_gettext(const char *msgid) { return msgid; }

const char *fab_pick_kind_name(enum fab_pick_kind k)
{
	static const char *const n[] = { "none", "port", "counter", "setting", "finding", "gpu", "nic",
					 "process", "step" };
	return (unsigned)k < sizeof(n) / sizeof(n[0]) ? n[k] : "?";
}

static void str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

int main(void)
{
	printf("{\"layers\": [");
	for (int l = 0; l < LEARN_NLAYERS; l++) {
		printf("%s", l ? ", " : "");
		str(learn_layer_name((enum learn_layer)l));
	}
	printf("],\n\"exercises\": [\n");
	for (int i = 0; i < learn_nexercises; i++) {
		const struct learn_exercise *e = &learn_exercises[i];
		printf("%s{\"id\": ", i ? ",\n" : "");
		str(e->id);
		printf(", \"by_id\": %s, \"layer\": %d, \"scenario\": ", learn_exercise_by_id(e->id) == e ? "true" : "false",
		       (int)e->layer);
		str(e->scenario);
		printf(", \"pane\": ");
		str(e->pane);
		printf(", \"title\": ");
		str(e->title);
		printf(", \"symptom\": ");
		str(e->symptom);
		printf(", \"task\": ");
		str(e->task);
		printf(", \"concept\": ");
		str(e->concept);
		printf(", \"answers\": [");
		for (int a = 0; a < LEARN_MAX_ANSWERS && e->answers[a].kind != PICK_NONE; a++) {
			printf("%s{\"kind\": ", a ? ", " : "");
			str(fab_pick_kind_name(e->answers[a].kind));
			printf(", \"dev\": ");
			str(e->answers[a].dev);
			printf(", \"port\": %d, \"name\": ", e->answers[a].port);
			str(e->answers[a].name);
			printf("}");
		}
		printf("], \"hints\": [");
		for (int h = 0; h < LEARN_MAX_HINTS && e->hints[h].text; h++) {
			printf("%s{\"layer\": %d, \"text\": ", h ? ", " : "", (int)e->hints[h].layer);
			str(e->hints[h].text);
			printf("}");
		}
		printf("], \"terms\": [");
		for (int t = 0; t < LEARN_MAX_TERMS && e->terms[t]; t++) {
			printf("%s", t ? ", " : "");
			str(e->terms[t]);
		}
		printf("]}");
	}
	printf("\n],\n\"terms\": [\n");
	for (int i = 0; i < learn_nterms; i++) {
		const struct learn_term *t = &learn_terms[i];
		printf("%s{\"id\": ", i ? ",\n" : "");
		str(t->id);
		printf(", \"by_id\": %s, \"layer\": %d, \"term\": ", learn_term_by_id(t->id) == t ? "true" : "false",
		       (int)t->layer);
		str(t->term);
		printf(", \"text\": ");
		str(t->text);
		printf(", \"see\": [");
		for (int s = 0; s < 4 && t->see[s]; s++) {
			printf("%s", s ? ", " : "");
			str(t->see[s]);
		}
		printf("]}");
	}
	printf("\n],\n\"unknown_exercise\": %s, \"unknown_term\": %s}\n",
	       learn_exercise_by_id("no-such-exercise") ? "false" : "true",
	       learn_term_by_id("no-such-term") ? "false" : "true");
	return 0;
}
