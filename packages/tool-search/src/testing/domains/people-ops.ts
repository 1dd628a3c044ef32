import type { CategorySpec } from "../catalog-spec.js";

/** HR, recruiting and payroll. */
export const PEOPLE_OPS: CategorySpec = {
  category: "people operations",
  entities: [
    {
      noun: "employee",
      gloss: "An {noun} record: job title, department, manager, start date and contact details.",
      fields: [
        ["first_name!", "string", "Given name"],
        ["last_name!", "string", "Family name"],
        ["work_email!", "email", "Work email"],
        ["department?", "string", "Department"],
        ["job_title", "string", "Job title"],
        ["manager_id?", "string", "Manager"],
        ["start_date", "date", "First day"],
      ],
      verbs: ["list", "get", "create", "update", "search"],
      custom: [
        {
          verb: "terminate",
          name: "terminate employee",
          destructive: true,
          description: "Records an {noun}'s last day and offboards them in {product}.",
          args: [["last_day!", "date", "Last working day"]],
        },
      ],
    },
    {
      noun: "time off request",
      gloss: "A {noun} (leave, vacation, PTO, sick day) that a manager approves.",
      fields: [
        ["employee_id!?", "string", "Who asks"],
        ["start!", "date", "First day off"],
        ["end!", "date", "Last day off"],
        ["type!", "enum:vacation|sick|parental|unpaid", "Kind of leave"],
        ["status?", "enum:requested|approved|denied", "Status"],
      ],
      verbs: ["list", "get", "create"],
      custom: [
        { verb: "approve", name: "approve time off request", description: "Approves a {noun} in {product}." },
        { verb: "deny", name: "deny time off request", description: "Denies a {noun} in {product}." },
        {
          verb: "get balance",
          name: "get time off balance",
          onItem: false,
          readOnly: true,
          description: "Returns how many vacation and sick days an employee has left in {product}.",
          args: [["employee_id!", "string", "The employee"]],
        },
      ],
    },
    {
      noun: "candidate",
      gloss: "A {noun} (applicant) for a job opening, with resume and interview stages.",
      fields: [
        ["name!", "string", "Full name"],
        ["email!", "email", "Email"],
        ["job_id?", "string", "Opening they applied for"],
        ["stage?", "string", "Hiring stage, e.g. Onsite"],
        ["resume_url", "uri", "Resume"],
      ],
      verbs: ["list", "get", "create", "update", "search"],
      custom: [
        {
          verb: "advance",
          name: "advance candidate",
          description: "Moves a {noun} to the next hiring stage in {product}.",
        },
        {
          verb: "reject",
          name: "reject candidate",
          description: "Rejects a {noun}, optionally sending a rejection email.",
          args: [["send_email", "boolean", "Email the candidate"]],
        },
        {
          verb: "schedule interview",
          name: "schedule interview",
          description: "Schedules an interview with a {noun} and the interviewers.",
          args: [
            ["interviewers!", "string[]", "Interviewers"],
            ["start!", "date-time", "When"],
          ],
        },
      ],
    },
    {
      noun: "job opening",
      gloss: "A {noun} (requisition, job posting) the company is hiring for.",
      fields: [
        ["title!", "string", "Job title"],
        ["department?", "string", "Department"],
        ["location", "string", "Where"],
        ["status?", "enum:open|closed|draft", "Status"],
      ],
      verbs: ["list", "get", "create", "update"],
    },
    {
      noun: "payroll run",
      gloss: "A {noun} pays employees their salaries for a pay period.",
      fields: [
        ["pay_period_start!", "date", "Start of the pay period"],
        ["pay_period_end!", "date", "End of the pay period"],
      ],
      verbs: ["list", "get", "create"],
      custom: [
        {
          verb: "submit",
          name: "submit payroll run",
          description: "Submits a {product} {noun} for payment.",
        },
      ],
    },
    {
      noun: "department",
      gloss: "A {noun} (team, cost center) employees belong to.",
      fields: [
        ["name!", "string", "Name"],
        ["head_id", "string", "Head of department"],
      ],
      verbs: ["list", "create"],
    },
    {
      noun: "performance review",
      gloss: "A {noun} (appraisal) of an employee by their manager and peers.",
      fields: [
        ["employee_id!?", "string", "Employee"],
        ["cycle?", "string", "Review cycle, e.g. 2025 H1"],
        ["rating", "integer", "Rating"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "onboarding task",
      gloss: "An {noun} a new hire or IT must complete in the first weeks (laptop, accounts, training).",
      fields: [
        ["employee_id!?", "string", "New hire"],
        ["title!", "string", "Task"],
        ["due", "date", "Due"],
      ],
      verbs: ["list", "create"],
      custom: [
        { verb: "complete", name: "complete onboarding task", description: "Marks an {noun} as done." },
      ],
    },
    {
      noun: "org chart",
      plural: "org chart",
      gloss: "The {noun}: who reports to whom.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get reports",
          name: "get direct reports",
          onItem: false,
          readOnly: true,
          description: "Lists the people who report to a manager in {product}.",
          args: [["manager_id!", "string", "Manager"]],
        },
      ],
    },
  ],
  products: [
    {
      key: "bamboohr",
      label: "BambooHR",
      style: "snake",
      without: ["candidate", "job opening", "payroll run"],
    },
    { key: "workday", label: "Workday", style: "camel" },
    {
      key: "greenhouse",
      label: "Greenhouse",
      style: "snake",
      without: ["employee", "time off request", "payroll run"],
    },
    {
      key: "lever",
      label: "Lever",
      style: "kebab",
      without: ["employee", "time off request", "payroll run"],
      rename: { candidate: "opportunity" },
    },
    { key: "gusto", label: "Gusto", style: "snake", without: ["candidate", "job opening"] },
    { key: "personio", label: "Personio", style: "camel", without: ["payroll run"] },
    { key: "rippling", label: "Rippling", style: "snake" },
    { key: "hibob", label: "HiBob", style: "camel", without: ["candidate", "job opening", "payroll run"] },
  ],
};
