/* config.c - the user's settings (config.h). Defaults only until the
 * settings file is read (the config helper's work lands here). */
#include "fabtop/config.h"

static struct fab_config current = { .interval = 1.0, .theme = CFG_THEME_DARK,
				     .pane = "topology", .mouse = true };

const struct fab_config *cfg_get(void)
{
	return &current;
}

int cfg_load(const char *path)
{
	(void)path;
	return 0;
}

int cfg_save(const struct fab_config *c, const char *path)
{
	(void)path;
	current = *c;
	return 0;
}

const char *cfg_error(void)
{
	return "";
}
