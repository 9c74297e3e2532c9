/* dl.c - optional libraries opened at run time: absent means "feature off". */
#include <dlfcn.h>
#include <stdio.h>
#include "dl.h"
#include "fabtop/util.h"

void *fab_dlopen_first(const char *const *sonames, const char **loaded,
		       char *why, size_t whylen)
{
	const char *last = "no library names given";
	char lastbuf[512];

	if (loaded)
		*loaded = NULL;
	for (; sonames && *sonames; sonames++) {
		/* RTLD_LOCAL: the vendor library's symbols must not satisfy ours. */
		void *h = dlopen(*sonames, RTLD_NOW | RTLD_LOCAL);
		if (h) {
			if (loaded)
				*loaded = *sonames;
			if (why && whylen)
				why[0] = '\0';
			return h;
		}
		/* dlerror() is cleared by the next call: keep a copy. */
		const char *e = dlerror();
		fab_strlcpy(lastbuf, e ? e : *sonames, sizeof(lastbuf));
		last = lastbuf;
	}
	if (why && whylen)
		snprintf(why, whylen, "not loaded: %s", last);
	return NULL;
}
