#include "CBlueZ.h"
int cbluez_placeholder(void) { return 0; }
