/* gnubg's table sigmoid S(z) ~ 1/(1+e^z): e^x read from a table at tenths
 * and corrected linearly, saturating at |z| >= 10. */
#ifndef BG_SIGMOID_H
#define BG_SIGMOID_H

/* S(z) for z >= 10 and for z <= -10: 1/(1 + e^9.9) and its complement (the
 * table's last entry at x = 100). */
#define BG_SIG_HIGH (1.0f / 19931.370438230298f)
#define BG_SIG_LOW (19930.370438230298f / 19931.370438230298f)

float bg_sigmoid(float z);
/* e[k] = float(exp(k/10)/10) for k = 0..99; e[100] repeats e[99]. */
extern const float bg_sigmoid_exp_table[101];

#endif
