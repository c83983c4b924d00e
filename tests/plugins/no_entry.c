/*
 * no_entry.c - a shared library that is not an abbench plugin: it exports
 * a function, but not abbench_plugin_entry.
 */
int not_a_plugin(int x);

int not_a_plugin(int x)
{
	return x + 1;
}
