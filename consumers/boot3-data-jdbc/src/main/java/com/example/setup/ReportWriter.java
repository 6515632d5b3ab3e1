package com.example.setup;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The job's work: here, a row per run.
 */
@Component
public class ReportWriter {

    private final JdbcClient jdbc;

    public ReportWriter(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public void write() {
        jdbc.sql("INSERT INTO report_runs DEFAULT VALUES").update();
    }
}
