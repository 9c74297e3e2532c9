/* learn_index.c - the learn content's lookups (learn.h): by id, and the
 * layers' names. Apart from the engine, so that the content and these
 * alone build (tests/learn/learn_dump.c, the engine's unit test). */
#include <string.h>
#include "fabtop/i18n.h"
#include "fabtop/learn.h"

static const char *const layer_names[LEARN_NLAYERS] = {
	[LEARN_PHYSICAL] = N_("physical"),
	[LEARN_LINK] = N_("link"),
	[LEARN_IP] = N_("IP/MTU"),
	[LEARN_RDMA] = N_("RDMA"),
	[LEARN_NCCL] = N_("NCCL"),
};

const char *learn_layer_name(enum learn_layer l)
{
	if ((int)l < 0 || l >= LEARN_NLAYERS)
		return "?";
	return _(layer_names[l]);
}

const struct learn_exercise *learn_exercise_by_id(const char *id)
{
	for (int i = 0; id && i < learn_nexercises; i++)
		if (strcmp(learn_exercises[i].id, id) == 0)
			return &learn_exercises[i];
	return NULL;
}

const struct learn_term *learn_term_by_id(const char *id)
{
	for (int i = 0; id && i < learn_nterms; i++)
		if (strcmp(learn_terms[i].id, id) == 0)
			return &learn_terms[i];
	return NULL;
}
