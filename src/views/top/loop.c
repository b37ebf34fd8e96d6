/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "canvas.h"
#include "keys.h"
#include "loop.h"
#include "render.h"
#include "term-curses.h"

static double monotonic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The actions that need the rows on screen: selection, search, detail. */
static int apply_action(struct top_model *m, struct top_ui *ui, enum top_action a)
{
	struct top_table t;
	long page = ui->page > 1 ? ui->page - 1 : 1;
	int r;

	switch (a) {
	case ACT_UP:
	case ACT_DOWN:
	case ACT_PGUP:
	case ACT_PGDN:
	case ACT_HOME:
	case ACT_END:
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
	case ACT_INPUT_CHANGED:
	case ACT_DETAIL:
	case ACT_EXPAND:
		break;
	default:
		return 0;
	}
	r = top_model_table(m, ui, &t);
	if (r < 0)
		return r;
	switch (a) {
	case ACT_UP:
		top_ui_move(ui, &t, -1);
		break;
	case ACT_DOWN:
		top_ui_move(ui, &t, 1);
		break;
	case ACT_PGUP:
		top_ui_move(ui, &t, -page);
		break;
	case ACT_PGDN:
		top_ui_move(ui, &t, page);
		break;
	case ACT_HOME:
		top_ui_move(ui, &t, LONG_MIN);
		break;
	case ACT_END:
		top_ui_move(ui, &t, LONG_MAX);
		break;
	case ACT_SEARCH_NEXT:
		top_ui_search(ui, &t, 1, false);
		break;
	case ACT_SEARCH_PREV:
		top_ui_search(ui, &t, -1, false);
		break;
	case ACT_INPUT_CHANGED:
		/* incremental search: the first match from the selection on */
		if (ui->input == TOP_INPUT_SEARCH)
			top_ui_search(ui, &t, 1, true);
		break;
	case ACT_DETAIL:
		top_ui_open_detail(ui, &t);
		break;
	case ACT_EXPAND:
		top_ui_expand(ui, &t);
		break;
	default:
		break;
	}
	top_table_done(&t);
	return 0;
}

static void apply_mouse(struct top_model *m, struct top_ui *ui,
			const struct top_hitmap *hit, const struct term_mouse *ms)
{
	struct top_table t;
	int col, tab;
	long row;

	if (ui->help) {
		/* the wheel scrolls the help, a click returns from it */
		if (ms->button == TERM_BUTTON_WHEEL_UP)
			ui->help_scroll -= 3;
		else if (ms->button == TERM_BUTTON_WHEEL_DOWN)
			ui->help_scroll += 3;
		else
			ui->help = false;
		return;
	}
	if (ms->button == TERM_BUTTON_WHEEL_UP || ms->button == TERM_BUTTON_WHEEL_DOWN) {
		if (top_model_table(m, ui, &t) == 0) {
			top_ui_move(ui, &t, ms->button == TERM_BUTTON_WHEEL_UP ? -3 : 3);
			top_table_done(&t);
		}
		return;
	}
	tab = top_hit_tab(hit, ms->y, ms->x);
	if (tab >= 0) {
		ui->view = (enum top_view)tab;
		ui->tab = ui->view;
		return;
	}
	col = top_hit_column(hit, ms->y, ms->x);
	if (col >= 0) {
		keys_sort_by(ui, col);
		return;
	}
	row = top_hit_row(hit, ms->y);
	if (row >= 0 && top_model_table(m, ui, &t) == 0) {
		top_ui_select(ui, &t, (size_t)row);
		if (ms->double_click)
			top_ui_open_detail(ui, &t);
		top_table_done(&t);
	}
}

static int draw(struct canvas *c, struct top_model *m, struct top_ui *ui,
		const struct top_loop_opts *o, struct top_hitmap *hit)
{
	struct top_render_opts ro = { .program = o->program, .delay = o->delay,
				      .batch = o->batch };
	struct top_table t;
	int r = top_model_table(m, ui, &t);

	if (r < 0)
		return r;
	top_render(c, m, ui, &t, &ro, hit);
	top_table_done(&t);
	return 0;
}

int top_loop_batch_frame(const struct top_sampler *smp, struct top_model *m,
			 struct top_ui *ui, const struct top_loop_opts *o, double dt,
			 const struct top_sample **ret_sample)
{
	const struct top_sample *s = NULL;
	struct canvas c;
	struct top_hitmap hit;
	int r;

	r = smp->sample(smp->userdata, dt, &s);
	if (r < 0)
		return r;
	r = top_model_update(m, s);
	if (r < 0)
		return r;
	if (o->json) {
		struct top_render_opts ro = { .program = o->program, .delay = o->delay,
					      .batch = true };
		struct top_table t;

		r = top_model_table(m, ui, &t);
		if (r < 0)
			return r;
		r = top_render_json(o->out, m, ui, &t, &ro);
		top_table_done(&t);
		if (ret_sample)
			*ret_sample = s;
		return r;
	}
	r = canvas_init(&c, o->width, o->height, o->unicode);
	if (r < 0)
		return r;
	r = draw(&c, m, ui, o, &hit);
	if (r >= 0)
		r = o->color ? canvas_to_sgr_text(&c, o->out) : canvas_to_text(&c, o->out);
	canvas_done(&c);
	if (ret_sample)
		*ret_sample = s;
	return r;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits @secs for one of the stop signals in @mask: its number, or 0. */
static int wait_stop_signal(const sigset_t *mask, double secs)
{
	double end = mono_now() + secs;

	for (;;) {
		double left = end - mono_now();
		struct timespec ts;
		int sig;

		if (left < 0)
			left = 0;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		sig = sigtimedwait(mask, NULL, &ts);
		if (sig > 0)
			return sig;
		if (errno != EINTR || left == 0)
			return 0;
	}
}

/*
 * Stop signals are taken between frames, not where they land, so that the caller
 * tears down what it set up (a live sampler's tracefs instance) before exiting.
 */
static int run_batch(const struct top_sampler *smp, struct top_model *m,
		     struct top_ui *ui, const struct top_loop_opts *o)
{
	sigset_t mask, old;
	int ret = 0;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	if (sigprocmask(SIG_BLOCK, &mask, &old) < 0)
		return -errno;
	for (long i = 0; !o->iterations || i < o->iterations; i++) {
		const struct top_sample *s;
		int r;

		ret = wait_stop_signal(&mask, i > 0 && !smp->virtual_clock ? o->delay : 0);
		if (ret)
			break;
		r = top_loop_batch_frame(smp, m, ui, o, i ? o->delay : 0, &s);
		/* a reader that went away (EPIPE) stops it as a signal would, as an error */
		if (r >= 0 && fflush(o->out) != 0)
			r = errno ? -errno : -EIO;
		if (r < 0) {
			ret = r;
			break;
		}
		if (s->finished && !o->iterations)
			break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static int arm_timer(int tfd, double delay)
{
	struct itimerspec it;
	time_t sec = (time_t)delay;
	long nsec = (long)((delay - (double)sec) * 1e9);

	if (sec == 0 && nsec < 1000000)
		nsec = 1000000;
	it.it_interval.tv_sec = sec;
	it.it_interval.tv_nsec = nsec;
	it.it_value = it.it_interval;
	return timerfd_settime(tfd, 0, &it, NULL) < 0 ? -errno : 0;
}

static int run_interactive(const struct top_sampler *smp, struct top_model *m,
			   struct top_ui *ui, const struct top_loop_opts *o)
{
	struct term_opts to = { .color = o->color,
				.mouse = o->mouse,
				.unicode = o->unicode };
	struct epoll_event ev;
	struct top_hitmap hit = { .header_y = -1, .tabs_y = -1 };
	struct canvas c = { 0 };
	sigset_t mask, old;
	int efd = -1, sfd = -1, tfd = -1, xfd = -1, r, ret = 0, w, h;
	long refreshes = 0;
	double last;
	const struct top_sample *s;
	bool dirty = true;

	sigemptyset(&mask);
	sigaddset(&mask, SIGWINCH);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	if (sigprocmask(SIG_BLOCK, &mask, &old) < 0)
		return -errno;
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	efd = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || tfd < 0 || efd < 0) {
		ret = -errno;
		goto out;
	}

	/* the first sample before the terminal changes: errors are still readable */
	r = smp->sample(smp->userdata, 0, &s);
	if (r < 0 || (r = top_model_update(m, s)) < 0) {
		ret = r;
		goto out;
	}
	refreshes = 1;
	last = monotonic_now();

	r = term_init(&to);
	if (r < 0) {
		ret = r;
		goto out;
	}
	term_size(&w, &h);
	r = canvas_init(&c, w, h, o->unicode);
	if (r < 0) {
		ret = r;
		goto out_term;
	}
	r = arm_timer(tfd, o->delay);
	if (r < 0) {
		ret = r;
		goto out_term;
	}
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = sfd };
	epoll_ctl(efd, EPOLL_CTL_ADD, sfd, &ev);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = tfd };
	epoll_ctl(efd, EPOLL_CTL_ADD, tfd, &ev);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = term_input_fd() };
	epoll_ctl(efd, EPOLL_CTL_ADD, term_input_fd(), &ev);
	if (smp->fd && (xfd = smp->fd(smp->userdata)) >= 0) {
		ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = xfd };
		epoll_ctl(efd, EPOLL_CTL_ADD, xfd, &ev);
	}

	while (!ui->quit) {
		struct epoll_event evs[4];
		int n;

		if (o->iterations && refreshes >= o->iterations && !dirty)
			break;
		if (dirty) {
			term_size(&w, &h);
			if ((w != c.w || h != c.h) && canvas_resize(&c, w, h) < 0) {
				ret = -ENOMEM;
				break;
			}
			r = draw(&c, m, ui, o, &hit);
			if (r < 0) {
				ret = r;
				break;
			}
			term_blit(&c, ui->redraw);
			ui->redraw = false;
			dirty = false;
			continue;
		}
		n = epoll_wait(efd, evs, 4, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == sfd) {
				struct signalfd_siginfo si;

				while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					if (si.ssi_signo == SIGWINCH) {
						/* the terminal may have cleared or reflowed: repaint all */
						term_resize();
						ui->redraw = true;
						dirty = true;
					} else {
						ret = (int)si.ssi_signo;
						ui->quit = true;
					}
				}
			} else if (fd == tfd) {
				uint64_t exp;
				double now = monotonic_now();

				if (read(tfd, &exp, sizeof(exp)) < 0)
					continue;
				/* paused: neither the clock of a replay nor the model moves */
				if (!ui->paused) {
					r = smp->sample(smp->userdata, now - last, &s);
					if (r >= 0)
						r = top_model_update(m, s);
					if (r < 0) {
						ret = r;
						ui->quit = true;
						break;
					}
					refreshes++;
				}
				last = now;
				dirty = true;
			} else if (fd == xfd) {
				if (smp->readable &&
				    (r = smp->readable(smp->userdata)) < 0) {
					ret = r;
					ui->quit = true;
				}
			} else {
				int key;
				struct term_mouse ms;

				while (!ui->quit && term_read_key(&key, &ms) == 1) {
					enum top_action a;

					if (key == TK_RESIZE) {
						dirty = true;
						continue;
					}
					if (key == TK_MOUSE) {
						apply_mouse(m, ui, &hit, &ms);
						dirty = true;
						continue;
					}
					a = keys_handle(ui, key);
					r = apply_action(m, ui, a);
					if (r < 0) {
						ret = r;
						ui->quit = true;
					}
					dirty = true;
				}
			}
		}
	}
out_term:
	term_done();
out:
	canvas_done(&c);
	if (efd >= 0)
		close(efd);
	if (tfd >= 0)
		close(tfd);
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int top_loop_run(const struct top_sampler *smp, struct top_model *m, struct top_ui *ui,
		 const struct top_loop_opts *o)
{
	if (o->batch)
		return run_batch(smp, m, ui, o);
	return run_interactive(smp, m, ui, o);
}
