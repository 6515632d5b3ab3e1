package com.example.setup;

import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A nightly job written for ShedLock, unchanged: the application defines no {@code LockProvider}, so
 * {@code @SchedulerLock} runs on the starter's, an invocation-scoped advisory lock of key {@code 'daily-report'} in the
 * namespace {@code shedlock}. Another instance that fires at the same time skips its run.
 */
@Component
public class DailyReportJob {

    private final ReportWriter writer;

    public DailyReportJob(ReportWriter writer) {
        this.writer = writer;
    }

    @Scheduled(cron = "${report.cron:0 0 2 * * *}")
    @SchedulerLock(name = "daily-report")
    public void run() {
        writer.write();
    }
}
