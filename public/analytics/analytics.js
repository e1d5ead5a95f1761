// Picking dates by hand switches the date range to "Custom range", since a
// preset would otherwise win over the dates. The intervals disabled as too
// fine for the range shown are offered again once the range changes: should
// the new range refuse the one chosen, the page shows it by the finest it
// takes, and says so.
for (const form of document.querySelectorAll('[data-analytics-form]')) {
  const preset = form.querySelector('[data-range-preset]');
  const offerEveryInterval = () => {
    for (const option of form.querySelectorAll('[data-interval] option')) option.disabled = false;
  };
  preset.addEventListener('change', offerEveryInterval);
  for (const input of form.querySelectorAll('[data-range-date]')) {
    input.addEventListener('change', () => {
      preset.value = 'custom';
      offerEveryInterval();
    });
  }
}
