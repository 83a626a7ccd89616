// SPDX-License-Identifier: GPL-2.0
/*
 * kconfig-dump: the menu tree of a kernel's Kconfig, one line a menu entry.
 *
 *   kconfig-dump KCONFIG
 *
 * Linked with the kconfig parser of the tree being checked (its
 * scripts/kconfig objects, conf.o left out): conf_parse() reads KCONFIG
 * as "make menuconfig" would (the same environment: srctree, SRCARCH,
 * CC, ...) and menu_finalize() builds the tree that menuconfig shows,
 * the submenus of "menuconfig" entries and of the entries that depend on
 * the one above them included.  Each entry of that tree, depth first, is
 * printed as
 *
 *   DEPTH <TAB> KIND <TAB> NAME <TAB> PROMPT <TAB> KEYPATH <TAB> SHOWNPATH
 *
 * KIND: config, menuconfig, choice, menu, comment or other; NAME: the
 * symbol ("-" for none); PROMPT: its prompt ("-" for none); KEYPATH: the
 * entries above it, from the top, each as its symbol ("menu PROMPT" or
 * "choice PROMPT" where it has none), joined by " > " ("-" at the top);
 * SHOWNPATH: the same entries by the prompts menuconfig shows.  The main
 * menu itself (its prompt names the kernel version) is left out.  Tabs
 * and newlines in prompts become spaces.  Exit status: 0, 1 when the
 * Kconfig does not parse (kconfig's own messages on stderr), 2 on bad
 * usage or a failed write.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lkc.h"

/* One menu entry above the one being printed. */
struct level {
	const char *key;
	const char *shown;
};

#define MAX_DEPTH 64

static struct level path[MAX_DEPTH];

/* clean: TEXT with tabs and newlines as spaces, in BUF of SIZE bytes. */
static const char *clean(const char *text, char *buf, size_t size)
{
	size_t i;

	for (i = 0; text[i] && i + 1 < size; i++)
		buf[i] = (text[i] == '\t' || text[i] == '\n') ? ' ' : text[i];
	buf[i] = '\0';
	return buf;
}

/* kind_of: what MENU is, as the KIND column says it. */
static const char *kind_of(struct menu *menu)
{
	if (menu->sym && menu->sym->name)
		return menu->prompt && menu->prompt->type == P_MENU ? "menuconfig" : "config";
	if (menu->sym)
		return "choice";
	if (menu->prompt && menu->prompt->type == P_MENU)
		return "menu";
	if (menu->prompt && menu->prompt->type == P_COMMENT)
		return "comment";
	return "other";
}

/* text_of: MENU's prompt, cleaned, or "-". */
static const char *text_of(struct menu *menu)
{
	static char buf[4096];
	const char *prompt = menu->prompt ? menu->prompt->text : NULL;

	return prompt && *prompt ? clean(prompt, buf, sizeof(buf)) : "-";
}

/* key_of: MENU as one step of a KEYPATH (a new string). */
static char *key_of(struct menu *menu)
{
	const char *kind = kind_of(menu);
	size_t size;
	char *key;

	if (menu->sym && menu->sym->name)
		return strdup(menu->sym->name);
	size = strlen(kind) + strlen(text_of(menu)) + 2;
	key = malloc(size);
	if (key)
		snprintf(key, size, "%s %s", kind, text_of(menu));
	return key;
}

/* print_path: the steps 0..DEPTH-1 of the path, by key or as shown. */
static void print_path(int depth, int shown)
{
	int i;

	if (depth == 0)
		fputs("-", stdout);
	for (i = 0; i < depth; i++)
		printf("%s%s", i ? " > " : "", shown ? path[i].shown : path[i].key);
}

/* dump: MENU and the entries after it at DEPTH, with their children. */
static int dump(struct menu *menu, int depth)
{
	char *key, *shown;

	if (depth >= MAX_DEPTH) {
		fprintf(stderr, "kconfig-dump: the menu tree is deeper than %d\n", MAX_DEPTH);
		return -1;
	}
	for (; menu; menu = menu->next) {
		printf("%d\t%s\t%s\t", depth, kind_of(menu),
		       menu->sym && menu->sym->name ? menu->sym->name : "-");
		printf("%s\t", text_of(menu));
		print_path(depth, 0);
		putchar('\t');
		print_path(depth, 1);
		putchar('\n');
		if (!menu->list)
			continue;
		key = key_of(menu);
		shown = strdup(strcmp(text_of(menu), "-") ? text_of(menu) : (key ? key : ""));
		if (!key || !shown) {
			fprintf(stderr, "kconfig-dump: out of memory\n");
			return -1;
		}
		path[depth].key = key;
		path[depth].shown = shown;
		if (dump(menu->list, depth + 1))
			return -1;
		free(key);
		free(shown);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: kconfig-dump KCONFIG\n");
		return 2;
	}
	conf_parse(argv[1]);
	if (dump(rootmenu.list, 0))
		return 2;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kconfig-dump: cannot write the menu tree\n");
		return 2;
	}
	return 0;
}
