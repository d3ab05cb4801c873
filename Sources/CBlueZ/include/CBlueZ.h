#ifndef CBLUEZ_H
#define CBLUEZ_H
/* Placeholder: the HCI socket helpers land here. */
int cbluez_placeholder(void);
#endif
