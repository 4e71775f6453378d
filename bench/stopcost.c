/* bench/stopcost.c: what one trapped system call costs the tracee and its
 * supervisor, by mechanism, on this machine: a child calls getppid 20,000
 * times under a seccomp filter that returns SECCOMP_RET_TRACE (a ptrace
 * stop, answered by PTRACE_CONT) or SECCOMP_RET_USER_NOTIF (answered with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE; "notifysync" also sets the listener's
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6, so the supervisor is woken
 * on the task's CPU), or no filter ("plain"). Prints the wall time and the
 * CPU (both processes) per call. Not part of make; run:
 *   cc -O2 -o /tmp/stopcost bench/stopcost.c
 *   for m in plain ptrace notify notifysync; do /tmp/stopcost $m; taskset -c 0 /tmp/stopcost $m; done
 * (taskset: the supervisor woken on the tracee's own CPU, no cross-CPU
 * wakeup). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define N 20000
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static int install(unsigned action, unsigned flags){
 struct sock_filter f[]={BPF_STMT(BPF_LD|BPF_W|BPF_ABS,offsetof(struct seccomp_data,nr)),
  BPF_JUMP(BPF_JMP|BPF_JEQ|BPF_K,SYS_getppid,0,1),BPF_STMT(BPF_RET|BPF_K,action),BPF_STMT(BPF_RET|BPF_K,SECCOMP_RET_ALLOW)};
 struct sock_fprog p={4,f}; prctl(PR_SET_NO_NEW_PRIVS,1,0,0,0);
 return syscall(SYS_seccomp,SECCOMP_SET_MODE_FILTER,flags,&p);}
static void loop(void){for(int i=0;i<N;i++) syscall(SYS_getppid);}
static double cpu_children(void){struct rusage r;getrusage(RUSAGE_CHILDREN,&r);return r.ru_utime.tv_sec*1e3+r.ru_utime.tv_usec/1e3+r.ru_stime.tv_sec*1e3+r.ru_stime.tv_usec/1e3;}
static double cpu_self(void){struct rusage r;getrusage(RUSAGE_SELF,&r);return r.ru_utime.tv_sec*1e3+r.ru_utime.tv_usec/1e3+r.ru_stime.tv_sec*1e3+r.ru_stime.tv_usec/1e3;}
int main(int argc,char**argv){
 if(argc<2){fputs("usage: stopcost plain|ptrace|notify|notifysync\n",stderr);return 2;}
 const char*mode=argv[1]; double t0=now(), c0=cpu_self()+cpu_children();
 if(!strcmp(mode,"ptrace")){
  pid_t c=fork(); if(!c){ raise(SIGSTOP); install(SECCOMP_RET_TRACE,0); loop(); _exit(0);}
  waitpid(c,NULL,WSTOPPED); ptrace(PTRACE_SEIZE,c,0,PTRACE_O_TRACESECCOMP|PTRACE_O_EXITKILL); kill(c,SIGCONT);
  int st; for(;;){ if(waitpid(c,&st,__WALL)<0) break; if(WIFEXITED(st)) break; int sig=WSTOPSIG(st); long d=0; if(st>>16==0 && sig!=SIGTRAP && sig!=SIGSTOP) d=sig; ptrace(PTRACE_CONT,c,0,d);}
 } else if(!strcmp(mode,"notify")||!strcmp(mode,"notifysync")){
  int sv[2]; socketpair(AF_UNIX,SOCK_STREAM,0,sv);
  pid_t c=fork(); if(!c){ int fd=install(SECCOMP_RET_USER_NOTIF,SECCOMP_FILTER_FLAG_NEW_LISTENER);
   char b[CMSG_SPACE(sizeof(int))]; struct msghdr m={0}; char x='x'; struct iovec io={&x,1}; m.msg_iov=&io;m.msg_iovlen=1;m.msg_control=b;m.msg_controllen=sizeof b;
   struct cmsghdr*cm=CMSG_FIRSTHDR(&m); cm->cmsg_level=SOL_SOCKET;cm->cmsg_type=SCM_RIGHTS;cm->cmsg_len=CMSG_LEN(sizeof(int)); memcpy(CMSG_DATA(cm),&fd,sizeof fd);
   sendmsg(sv[1],&m,0); close(fd); loop(); _exit(0);}
  char b[CMSG_SPACE(sizeof(int))]; struct msghdr m={0}; char x; struct iovec io={&x,1}; m.msg_iov=&io;m.msg_iovlen=1;m.msg_control=b;m.msg_controllen=sizeof b;
  recvmsg(sv[0],&m,0); int fd; memcpy(&fd,CMSG_DATA(CMSG_FIRSTHDR(&m)),sizeof fd);
  /* the flags are the ioctl's argument itself, not a pointer to them */
  if(!strcmp(mode,"notifysync")&&ioctl(fd,SECCOMP_IOW(4,__u64),1UL)){perror("SECCOMP_IOCTL_NOTIF_SET_FLAGS");return 1;}
  struct seccomp_notif req; struct seccomp_notif_resp resp;
  for(int i=0;i<N;i++){ memset(&req,0,sizeof req); if(ioctl(fd,SECCOMP_IOCTL_NOTIF_RECV,&req)) break;
   memset(&resp,0,sizeof resp); resp.id=req.id; resp.flags=SECCOMP_USER_NOTIF_FLAG_CONTINUE; ioctl(fd,SECCOMP_IOCTL_NOTIF_SEND,&resp);}
  waitpid(c,NULL,0);
 } else { pid_t c=fork(); if(!c){ loop(); _exit(0);} waitpid(c,NULL,0); }
 double w=now()-t0, cpu=cpu_self()+cpu_children()-c0;
 printf("%-7s %6.1f us wall/call %6.1f us cpu/call\n",mode,w*1000/N,cpu*1000/N); return 0;}
